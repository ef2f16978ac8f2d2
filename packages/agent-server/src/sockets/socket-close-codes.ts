/** Close code when websocket authentication fails (as OpenHands). */
export const AUTH_FAILED_CLOSE_CODE = 4001;

/**
 * Close code 1013 "Try Again Later": too many subscribers (as OpenHands), or a subscriber so slow
 * that events were dropped before they could be sent.
 */
export const TRY_AGAIN_LATER_CLOSE_CODE = 1013;
