package io.jtrace.agent.trackevent;

import io.jtrace.api.AgentBridge;
import io.jtrace.shm.writer.TraceWriter;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sequences platform threads own: how many may be open at once (the budget), which threads hold
 * one, and closing them — by the thread itself when the session it wrote in has stopped, by the
 * reaper once the thread has ended. Each own sequence keeps one SMB chunk for as long as its thread
 * lives, so the budget bounds the SMB that idle threads can pin. A holder's {@link HotSequence} memo
 * takes and gives back its slot in the {@link HotSequenceTable} here.
 */
final class OwnedSequences {
    /** Threads that have held an own sequence: added by the thread itself, reaped by the producer thread. */
    private final ConcurrentLinkedQueue<ThreadState> holders = new ConcurrentLinkedQueue<>();
    /** Own sequences open now (any session): taken by threads with a CAS, given back when one closes. */
    private final AtomicInteger open = new AtomicInteger();
    /** Holders' hot memos by thread id (the data source reads it on every plain slice). */
    private final HotSequenceTable hotMemos;
    /** How many own sequences may be open; set at each session's start (producer thread). */
    private volatile int budget;

    OwnedSequences(HotSequenceTable hotMemos) {
        this.hotMemos = hotMemos;
    }

    void setBudget(int budget) {
        this.budget = budget;
    }

    /** Own sequences open now, in all sessions. */
    int openCount() {
        return open.get();
    }

    /**
     * An own sequence for thread {@code t} in {@code session} if the budget has room, else null (the
     * thread then writes through the session's pool). The calling thread is {@code t}.
     */
    Sequence open(ThreadState t, ActiveSession session) {
        if (!reserve()) {
            return null;
        }
        TraceWriter writer;
        try {
            writer = session.newWriter();
        } catch (RuntimeException e) {
            open.decrementAndGet();
            throw e;
        }
        if (!t.reapable) {
            t.reapable = true;
            holders.add(t);
        }
        return new Sequence(writer, t.trackUuid, session);
    }

    private boolean reserve() {
        int limit = budget;
        while (true) {
            int n = open.get();
            if (n >= limit) {
                return false;
            }
            if (open.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Closes the own sequence of {@code b}, if any: commits its last chunk and gives its place back. */
    void close(SessionBinding b) {
        Sequence own = b.own;
        if (own != null) {
            ActiveSession session = own.session;
            session.closeBegins();
            b.own = null;
            open.decrementAndGet();
            // Counted before the close, which may wait up to its stall limit for a chunk: a loss count read
            // meanwhile finds the drops in the closed sum, not nowhere. A packet the close aborts (none,
            // as writers are closed between packets) is counted after it.
            long before = own.writer.droppedRecords();
            session.writerClosed(before);
            session.closeEnds();
            own.writer.close();
            long during = own.writer.droppedRecords() - before;
            if (during > 0) {
                session.writerClosed(during);
            }
        }
    }

    /**
     * The calling thread's first event since sessions started or stopped: its own writers in sessions
     * that have stopped are closed now (the SMB and the budget are shared by all sessions; a live
     * thread's writer can only be closed by the thread itself).
     */
    void closeStale(ThreadState t, ActiveSession[] all) {
        for (int slot = 0; slot < all.length; slot++) {
            SessionBinding b = t.bindingIfAny(slot);
            if (b != null && b.own != null && b.session != all[slot]) {
                close(b);
            }
        }
        t.seenSessions = all;
    }

    /**
     * Producer thread: closes the own sequences of threads that have ended, which commits their last
     * chunk, retires their sequence (its writer id comes back once the service knows) and frees their
     * place in the budget and in the memo table. A dead thread never writes again, and everything it
     * wrote happened-before its end was observed (isAlive, JLS 17.4.4), so closing its writer here
     * races with nothing. Live threads are not touched.
     */
    void reapEnded() {
        for (Iterator<ThreadState> it = holders.iterator(); it.hasNext(); ) {
            ThreadState t = it.next();
            if (!t.thread.isAlive()) {
                it.remove();
                hotMemos.remove(t.hot);
                for (int slot = 0; slot < AgentBridge.MAX_SESSIONS; slot++) {
                    SessionBinding b = t.bindingIfAny(slot);
                    if (b != null) {
                        close(b);
                    }
                }
            }
        }
    }

    /**
     * The events the own writers of live threads dropped in {@code session}: those writers are still their
     * threads', so their counts are read as they are now ({@link TraceWriter#droppedRecords}, possibly a
     * few events stale if such a thread is still writing). A writer whose {@code own} was cleared has
     * been or is being closed: its count goes to the session's closed sum (see {@link ActiveSession#lostEvents}).
     */
    long droppedByOpenWriters(ActiveSession session) {
        long dropped = 0;
        for (ThreadState t : holders) {
            SessionBinding b = t.bindingIfAny(session.slot());
            Sequence own = b == null ? null : b.own;
            // The sequence's own (final) session, not the binding's, which a new session in the same slot
            // may have taken over between the two reads.
            if (own != null && own.session == session) {
                dropped += own.writer.droppedRecords();
            }
        }
        return dropped;
    }

    /** After the general route: the thread's memo takes its table slot if it names an own sequence. */
    void offerHotMemo(HotSequence hot) {
        if (hot.sequence() != null) {
            hotMemos.offer(hot);
        }
    }
}
