package io.jtrace.service.port;

import io.jtrace.ipc.IpcConnection;
import io.jtrace.ipc.PeerIdentity;
import java.util.concurrent.atomic.AtomicLong;

/** A connection with no socket behind it: the peer a test says, and whether (and why) it was closed. */
final class FakeConnection implements IpcConnection {
    private static final AtomicLong IDS = new AtomicLong();
    private final long id = IDS.incrementAndGet();
    private final PeerIdentity peer;
    volatile String closedBecause;

    FakeConnection(int uid, int pid) {
        this.peer = new PeerIdentity("user" + uid, uid, pid);
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public PeerIdentity peer() {
        return peer;
    }

    @Override
    public void close(String reason) {
        closedBecause = reason;
    }
}
