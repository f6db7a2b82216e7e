/** What both toy-family tests plan: three widgets, the family pruned. */
import type { ApiClient } from '../../../src/api/index.js';

export const TOY_CONFIG = `widgets:
  - name: big
    size: 3
    color: blue
  - name: small
    tags: [b, a]
  - name: fresh
    size: 2
manage:
  widgets:
    prune: true
`;

/** The toy never calls the client: it reaches its widgets through its own API module. */
export const noApi = {} as ApiClient;
