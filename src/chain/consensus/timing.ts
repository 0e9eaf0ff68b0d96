// Node timing (main.h, komodo_defs.h).
/** DEFAULT_MAX_TIP_AGE: a tip older than this (seconds) means initial block download (main.h). */
export const DEFAULT_MAX_TIP_AGE = 24 * 60 * 60;
/** KOMODO_MAXMEMPOOLTIME (komodo_defs.h): seconds; the wallet does not resend a transaction whose time lock is older. */
export const KOMODO_MAXMEMPOOLTIME = 3600;
