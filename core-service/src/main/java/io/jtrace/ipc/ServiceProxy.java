package io.jtrace.ipc;

import com.google.protobuf.MessageLite;

/** A service bound on a client's connection. */
public interface ServiceProxy {
    /**
     * Calls {@code method} with {@code args}. With a null {@code handler} the call asks for no reply
     * ({@code drop_reply}). An unknown method name fails the handler at once. Thread-safe; calls reach
     * the host in the order they were made.
     */
    void invoke(String method, MessageLite args, ReplyHandler handler);
}
