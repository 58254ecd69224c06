package io.jtrace.agent.trackevent;

import io.jtrace.agent.tracks.OsThreadId;
import io.jtrace.agent.tracks.ProcessTrack;
import io.jtrace.agent.tracks.ThreadKind;

/**
 * One application thread's track_event state: its track, and how it writes in the current session —
 * through a sequence of its own (a platform thread within the owned-writer budget: no atomic operation
 * per event) or through the session's {@link SequencePool}. Touched only by its own thread, except by
 * the reaper once the thread has ended (see {@link TrackEventDataSource}).
 *
 * <p>Small on purpose: a virtual thread gets one of these, and a JVM may run millions of them.
 */
final class ThreadState {
    final Thread thread;
    final boolean virtual;
    /** OS thread id for a platform thread; the Java thread id for a virtual one (it has no OS thread). */
    final long id;
    final long trackUuid;
    /** The session the fields below belong to, or null before the first event. */
    ActiveSession session;
    /** This thread's own sequence, or null: it writes through the session's pool. */
    Sequence own;
    /** The session generation in which this thread's track was last described on a pooled sequence. */
    int describedGeneration = -1;
    /** The pool slot this thread claimed last: tried first next time, so a thread tends to keep its slot. */
    int poolHint;
    /** Whether the reaper knows this thread (it has held an own sequence). */
    boolean reapable;

    ThreadState(ProcessTrack process) {
        this.thread = Thread.currentThread();
        this.virtual = ThreadKind.isVirtual(thread);
        @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+; getId() is the same value
        long javaId = thread.getId();
        this.id = virtual ? javaId : OsThreadId.current();
        this.trackUuid = virtual ? process.virtualThreadUuid(javaId) : process.threadUuid(id);
        this.poolHint = (int) (javaId ^ (javaId >>> 32));
    }
}
