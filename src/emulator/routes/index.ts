/** Every API route, in one table: adding a family is one import and one spread here. */
import type { Route } from '../router.js';
import { applicationRuleRoutes } from './application-rules.js';
import { groupRoutes } from './groups.js';
import { networkRuleSettingsRoutes } from './network-rule-settings.js';
import { notificationRoutes } from './notifications.js';
import { ruleRoutes } from './rules.js';
import { scheduleRoutes } from './schedules.js';
import { signinRoutes } from './signin.js';
import { userRoutes } from './users.js';

export const API_ROUTES: readonly Route[] = [
  ...groupRoutes,
  ...ruleRoutes,
  ...applicationRuleRoutes,
  ...notificationRoutes,
  ...scheduleRoutes,
  ...networkRuleSettingsRoutes,
  ...signinRoutes,
  ...userRoutes,
];
