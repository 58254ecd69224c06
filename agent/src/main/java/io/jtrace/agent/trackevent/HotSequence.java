package io.jtrace.agent.trackevent;

import io.jtrace.api.Category;

/**
 * One platform thread's memo of where its last event went when that was a single session through the
 * thread's own sequence: the next slice with a category of the same session mask, while no session has
 * started or stopped, goes straight to that sequence ({@link Sequence#tryPlainEvent}) instead of through
 * the general route (its session loop, binding lookup, pool and restart checks and the full encoder).
 *
 * <p>The memo holds while {@link TrackEventDataSource}'s sessions array is the one it was taken with:
 * a thread's own sequence changes only when that array changes (a session started or stopped: the
 * thread closes or replaces its sequences on its next general event) or once the thread has ended.
 * Touched only by its thread.
 */
final class HotSequence {
    /** The memo of virtual threads, which never own a sequence: always empty. */
    static final HotSequence NONE = new HotSequence(null, 0);

    /** The thread this memo belongs to; null for {@link #NONE}. */
    final Thread thread;
    /** The thread's id when it made this memo: which {@link HotSequenceTable} slot the memo may take. */
    final long threadId;

    private int mask;
    private ActiveSession[] sessions;
    private ActiveSession session;
    private Sequence sequence;

    HotSequence(Thread thread, long threadId) {
        this.thread = thread;
        this.threadId = threadId;
    }

    /**
     * Writes the event into the remembered sequence if the memo holds and the event takes its plain form,
     * or drops it there, counted, while the SMB is known full. False: the general route must take it.
     */
    boolean tryWrite(int mask, ActiveSession[] all, int type, Category category, String name, long timestamp) {
        Sequence s = sequence;
        return s != null && mask == this.mask && all == sessions
                && s.tryPlainEvent(session.generation(), type, category, name, timestamp);
    }

    /** After the general route wrote an event with {@code mask} against {@code all}: what the next one may use. */
    void remember(ThreadState t, int mask, ActiveSession[] all) {
        if (this == NONE) {
            return;
        }
        Sequence own = null;
        ActiveSession target = null;
        if ((mask & (mask - 1)) == 0) {
            int slot = Integer.numberOfTrailingZeros(mask);
            SessionBinding b = t.bindingIfAny(slot);
            if (b != null && b.session == all[slot]) {
                own = b.own;
                target = b.session;
            }
        }
        this.mask = mask;
        this.sessions = all;
        this.session = target;
        this.sequence = own;
    }

    ActiveSession session() {
        return session;
    }

    Sequence sequence() {
        return sequence;
    }
}
