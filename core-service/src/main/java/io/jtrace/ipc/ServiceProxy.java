package io.jtrace.ipc;

import com.google.protobuf.MessageLite;

/** A service bound on a client's connection. */
public interface ServiceProxy {
    /**
     * Calls {@code method} with {@code args}. With a null {@code handler} the call asks for no reply
     * ({@code drop_reply}). Thread-safe; calls reach the host in the order they were made.
     *
     * <p>What fails before anything is sent fails the handler at once, on the calling thread: an unknown
     * method name (with a null handler: {@link IllegalArgumentException}), arguments over the frame
     * limit, a closed connection. Everything else reaches the handler on the client's reader thread.
     */
    void invoke(String method, MessageLite args, ReplyHandler handler);
}
