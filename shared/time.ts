/** ISO 8601 UTC with milliseconds and `Z`, the one timestamp format stored and returned. */
export const isoNow = (now: number = Date.now()) => new Date(now).toISOString()
