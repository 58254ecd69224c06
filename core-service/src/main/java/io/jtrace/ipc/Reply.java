package io.jtrace.ipc;

import com.google.protobuf.MessageLite;

/**
 * How a method answers one call: any number of {@link #stream} replies, then one {@link #complete} or
 * {@link #fail}. Thread-safe; replies reach the client in the order they were given. After the final
 * reply, or when the client asked for none ({@code drop_reply}) or has gone, calls are ignored.
 */
public interface Reply {
    /** One reply of a stream ({@code has_more = true}); more follow. */
    void stream(MessageLite message);

    /** The last reply ({@code success = true, has_more = false}). */
    void complete(MessageLite message);

    /** The call failed ({@code success = false}); {@code reason} is logged on the host, not sent. */
    void fail(String reason);

    /** Bytes queued on this call's connection and not yet written to the socket: a stream's back-pressure. */
    long pendingBytes();
}
