package io.jtrace.api;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A named track for work that is not bound to one thread: a request that hops between executors, a
 * connection's lifetime. Events put on it ({@code TrackEvent.event(category).on(track)}) may come from
 * any thread; its slices must nest properly, so give concurrent work tracks of its own. Creating one
 * allocates; using one does not.
 */
public final class AsyncTrack {
    private final String name;
    private final long uuid;
    /** The handle {@code Event.slice} returns on this track, made once per category (a track is rarely used with two). */
    private volatile Closer closer;
    /**
     * The backend's record, per session slot, of the session and generation this track was last
     * described in (see {@link AgentBridge#asyncTrackDescribedIn}): kept here, not in a map of the
     * session's, so a track per request costs the session nothing once the request is gone. Plain
     * fields: a thread that misses another's write describes the track again, which is harmless.
     */
    final Object[] describedSession = new Object[AgentBridge.MAX_SESSIONS];
    final int[] describedGeneration = new int[AgentBridge.MAX_SESSIONS];

    /**
     * The agent's copy of this track (same name and uuid) when this copy of the API is not the agent's
     * own, as {@link Category#twin}. Plain: two threads may each make one; both describe the same track.
     */
    Object twin;

    private AsyncTrack(String name, long uuid) {
        this.name = name;
        this.uuid = uuid;
    }

    /** A new track called {@code name} under this process (two calls with one name make two tracks). */
    public static AsyncTrack named(String name) {
        if (name == null) {
            throw new NullPointerException("name");
        }
        return withUuid(name, ThreadLocalRandom.current().nextLong() | 1);
    }

    static AsyncTrack withUuid(String name, long uuid) {
        return new AsyncTrack(name, uuid);
    }

    public String name() {
        return name;
    }

    /** The track's id in the trace. */
    public long uuid() {
        return uuid;
    }

    Slice closer(Category category) {
        Closer c = closer;
        if (c == null || c.category != category) {
            c = new Closer(category, this);
            closer = c;
        }
        return c;
    }

    /** Ends the innermost open slice of a track, in a category. */
    private static final class Closer implements Slice {
        final Category category;
        final AsyncTrack track;

        Closer(Category category, AsyncTrack track) {
            this.category = category;
            this.track = track;
        }

        @Override
        public void close() {
            TrackEvent.event(category).on(track).end();
        }
    }

    @Override
    public String toString() {
        return "AsyncTrack[" + name + "]";
    }
}
