/** How long everything the authorization server issues lives; docs/oauth.md lists the same. */

/** RFC 6749 §4.1.2: a maximum of 10 minutes is recommended. */
export const AUTHORIZATION_CODE_TTL_S = 600
/** A refresh token unused this long expires (each rotation starts a new period). */
export const REFRESH_IDLE_TTL_S = 30 * 86_400
/** No refresh token outlives its grant's first authorization by more than this; then the user signs in again. */
export const GRANT_ABSOLUTE_TTL_S = 90 * 86_400
/** RFC 8628 §3.2: expires_in and interval of a device authorization. */
export const DEVICE_CODE_TTL_S = 600
export const DEVICE_POLL_INTERVAL_S = 5
/** RFC 8628 §3.5: slow_down adds 5 seconds to the interval, for this and every later poll. */
export const SLOW_DOWN_STEP_S = 5
/** The signed login cookie between the login and consent pages. */
export const LOGIN_COOKIE_TTL_S = 600
/** A signed authorization request carried in a page's hidden field. */
export const INTERACTION_TTL_S = 600
