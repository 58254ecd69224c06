package io.jtrace.ipc;

import com.google.protobuf.ByteString;

/** A service bound on one connection: it answers that connection's calls. */
public interface ServiceBinding {
    /**
     * A call of {@code method} (one of the definition's methods) with its serialized arguments. Called
     * on the host's I/O thread, in the order the frames arrived; must not block. Answer through
     * {@code reply}, now or later, from any thread.
     */
    void invoke(String method, ByteString args, Reply reply);

    /** The connection closed (either side, or the host shut down); no call comes after this. */
    void unbound();
}
