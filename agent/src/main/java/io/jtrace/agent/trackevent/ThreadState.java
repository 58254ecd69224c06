package io.jtrace.agent.trackevent;

import io.jtrace.agent.tracks.OsThreadId;
import io.jtrace.api.AgentBridge;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.agent.tracks.ThreadKind;

/**
 * One application thread's track_event state: its track, and for each session slot how it writes into
 * that session ({@link SessionBinding}: through a sequence of its own — a platform thread within the
 * owned-writer budget, no atomic operation per event — or through the session's {@link SequencePool}).
 * Touched only by its own thread, except by the reaper once the thread has ended (see
 * {@link OwnedSequences}).
 *
 * <p>Small on purpose: a virtual thread gets one of these, and a JVM may run millions of them; a
 * binding is made for a slot only when the thread first writes into it.
 */
final class ThreadState {
    final Thread thread;
    final boolean virtual;
    /** OS thread id for a platform thread; the Java thread id for a virtual one (it has no OS thread). */
    final long id;
    final long trackUuid;
    private final SessionBinding[] bindings = new SessionBinding[AgentBridge.MAX_SESSIONS];
    /** The pool slot to try first in a new binding: spread threads over the pool. */
    private final int firstPoolHint;
    /**
     * The sessions array this thread last checked its bindings against: when it differs, sessions
     * started or stopped since, and own writers in stopped ones are closed.
     */
    ActiveSession[] seenSessions;
    /** Whether the reaper knows this thread (it has held an own sequence). */
    boolean reapable;
    /** Where this thread's plain slices go without the general route; empty for a virtual thread. */
    final HotSequence hot;

    ThreadState(ProcessTrack process) {
        this.thread = Thread.currentThread();
        this.virtual = ThreadKind.isVirtual(thread);
        @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+; getId() is the same value
        long javaId = thread.getId();
        this.id = virtual ? javaId : OsThreadId.current();
        this.trackUuid = virtual ? process.virtualThreadUuid(javaId) : process.threadUuid(id);
        this.firstPoolHint = (int) (javaId ^ (javaId >>> 32));
        this.hot = virtual ? HotSequence.NONE : new HotSequence(thread, javaId);
    }

    /** This thread's binding in session slot {@code slot}; its own thread only. */
    SessionBinding binding(int slot) {
        SessionBinding b = bindings[slot];
        if (b == null) {
            b = new SessionBinding();
            b.poolHint = firstPoolHint;
            bindings[slot] = b;
        }
        return b;
    }

    /** The binding in {@code slot} if the thread ever wrote there; the reaper's view of an ended thread. */
    SessionBinding bindingIfAny(int slot) {
        return bindings[slot];
    }
}
