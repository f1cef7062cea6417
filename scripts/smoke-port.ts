/**
 * A port for a smoke script's server: random, so that two runs on one machine do not meet, and
 * below 32768, where Linux's ephemeral range starts: a port in that range may be held by one of
 * the many outgoing connections the test suite leaves in TIME_WAIT, and the server then fails to
 * bind it.
 */
export const smokePort = () => 20000 + Math.floor(Math.random() * 12000)
