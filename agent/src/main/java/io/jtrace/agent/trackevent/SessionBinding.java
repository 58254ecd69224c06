package io.jtrace.agent.trackevent;

/**
 * How one application thread writes into the session in one slot: through a sequence of its own, or
 * through the session's pool. Touched only by its thread, except by the reaper once the thread has
 * ended (see {@link TrackEventDataSource}).
 */
final class SessionBinding {
    /** The session the fields below belong to, or null before the thread's first event in the slot. */
    ActiveSession session;
    /** This thread's own sequence in the session, or null: it writes through the session's pool. */
    Sequence own;
    /** The session generation in which this thread's track was last described on a pooled sequence. */
    int describedGeneration = -1;
    /** The pool slot this thread claimed last: tried first next time, so a thread tends to keep its slot. */
    int poolHint;
}
