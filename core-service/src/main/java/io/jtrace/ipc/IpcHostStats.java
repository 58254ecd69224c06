package io.jtrace.ipc;

/**
 * What an {@link IpcHost} has seen since it started: for status output and tests.
 *
 * @param connectionsAccepted connections accepted
 * @param connectionsOpen connections accepted and not closed yet
 * @param framesReceived well-formed frames received
 * @param framesMalformed frames dropped because their length was 0 or their bytes were not an IPCFrame
 * @param oversizeCloses connections closed because a frame announced more than 128 KiB
 * @param framesSent frames queued for sending (replies, bind replies, request errors)
 * @param requestErrors frames answered with a RequestError (no request the host knows)
 * @param failedCalls calls that failed, answered with {@code success = false} unless the client wanted no
 *     reply: unknown service or method, a binding that failed or threw, a reply over the frame limit
 * @param ignoredIdentityClaims {@code SetPeerIdentity} frames that came after a connection's first frame
 */
public record IpcHostStats(
        long connectionsAccepted,
        long connectionsOpen,
        long framesReceived,
        long framesMalformed,
        long oversizeCloses,
        long framesSent,
        long requestErrors,
        long failedCalls,
        long ignoredIdentityClaims) {}
