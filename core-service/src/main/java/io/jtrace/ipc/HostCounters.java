package io.jtrace.ipc;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The counters behind {@link IpcHostStats}. Mostly written by the host's I/O thread; {@link #framesSent}
 * and {@link #failedCalls} also by service threads that reply, hence atomics.
 */
final class HostCounters {
    final AtomicLong connectionsAccepted = new AtomicLong();
    final AtomicLong connectionsClosed = new AtomicLong();
    final AtomicLong framesReceived = new AtomicLong();
    final AtomicLong framesMalformed = new AtomicLong();
    final AtomicLong oversizeCloses = new AtomicLong();
    final AtomicLong framesSent = new AtomicLong();
    final AtomicLong requestErrors = new AtomicLong();
    final AtomicLong failedCalls = new AtomicLong();
    final AtomicLong ignoredIdentityClaims = new AtomicLong();

    IpcHostStats snapshot() {
        // Closed first: a connection is counted accepted before it is counted closed, so open is never < 0.
        long closed = connectionsClosed.get();
        long accepted = connectionsAccepted.get();
        return new IpcHostStats(accepted, accepted - closed, framesReceived.get(), framesMalformed.get(),
                oversizeCloses.get(), framesSent.get(), requestErrors.get(), failedCalls.get(), ignoredIdentityClaims.get());
    }
}
