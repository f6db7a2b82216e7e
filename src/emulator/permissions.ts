/**
 * What a seeded user's privileges are decided on (contract: "Emulator privileges"): the permissions
 * of the groups it belongs to. Each collection of the table says, per privilege, which holdings grant
 * it (collections.ts); auth.ts computes the holdings from the current store on every request.
 * Administrators (the admin token, or a member of an `is_admin` group) have every privilege.
 */

export const PERMISSION_EXPLORE_ALERTS = 0;
export const PERMISSION_HANDLE_RULES = 1;
/**
 * `Load source rules` in the spec's catalog: the vendor calls it "Load network rules", "translation
 * and sending of network rules to the enabled firewall"
 * (https://docs.seerbox.it/main/configuration/authentication-and-authorization). It is what a
 * non-admin needs for /api/v1/settings/rules (see routes/network-rule-settings.ts).
 */
export const PERMISSION_LOAD_NETWORK_RULES = 3;
/**
 * The vendor's "Handle users" permission has no id in the spec's catalog: a seeded permission outside
 * the catalog carrying this name (`permission_name`, compared without case) is it, and lets a
 * non-admin read /api/v1/users (routes/users.ts).
 */
export const HANDLE_USERS_NAME = 'handle users';

/** What a user who is not an administrator holds, through its groups. Never narrowed by service_id. */
export interface Holdings {
  /** The permission ids of its groups (the spec's catalog, and seeded ids outside it). */
  readonly permissions: ReadonlySet<number>;
  /** One of its groups holds the "Handle users" permission (HANDLE_USERS_NAME). */
  readonly handlesUsers: boolean;
}

/** Whether a user that is not an administrator has a privilege. */
export type Grant = (holdings: Holdings) => boolean;

/** Administrators only. */
export const ADMINS_ONLY: Grant = () => false;
/** Every signed-in user (a seeded token or one handed out by sign-in). */
export const ANY_USER: Grant = () => true;
