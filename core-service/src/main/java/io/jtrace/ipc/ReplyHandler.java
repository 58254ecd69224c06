package io.jtrace.ipc;

import com.google.protobuf.ByteString;

/**
 * What a client does with the replies to one call. Called on the client's reader thread, in order
 * (except a failure found before the call was sent, see {@link ServiceProxy#invoke}). A handler that
 * throws is logged; the connection goes on.
 */
public interface ReplyHandler {
    /** One reply; {@code hasMore} says whether more follow. */
    void onReply(ByteString reply, boolean hasMore);

    /**
     * The call failed: the host answered {@code success = false} or a request error, or the connection
     * closed before the last reply. Called at most once, and never after a reply with {@code hasMore = false}.
     */
    void onFailure(String reason);
}
