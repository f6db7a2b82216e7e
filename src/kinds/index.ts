/** The registry of resource families, in the order plans list them. */
import { applicationRulesKind } from './application-rules.js';
import { groupsKind } from './groups.js';
import type { Kind } from './kind.js';
import { notificationsKind } from './notifications.js';
import { schedulesKind } from './schedules.js';

export const KINDS: readonly Kind[] = [
  groupsKind,
  applicationRulesKind,
  notificationsKind,
  schedulesKind,
] as readonly Kind[];

export type { FetchOptions, Kind, RemoteRecord } from './kind.js';
