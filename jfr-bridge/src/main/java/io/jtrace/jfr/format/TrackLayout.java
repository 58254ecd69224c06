package io.jtrace.jfr.format;

/**
 * The tracks JFR events land on, and their uuids. A layout remembers which tracks it has described and
 * writes a track's descriptor (through the sequence it is given) the first time the track is used, or
 * again after {@link #forgetDescribed}. The agent's live source backs it with the agent's own track
 * uuids, so JFR events share the thread tracks of the application's own events.
 */
public interface TrackLayout {
    int pid();

    /** The track of the thread with OS id {@code tid}; {@code name} names it if it is new. */
    long threadTrack(SequenceWriter via, long tid, String name);

    /**
     * The track of a thread without an OS thread (a virtual thread), by its Java thread id; named like
     * the agent's virtual thread tracks: {@code <name> #<id>}.
     */
    long virtualThreadTrack(SequenceWriter via, long javaThreadId, String name);

    /** A track under the process, named {@code name}; a counter track when {@code counter}. */
    long namedTrack(SequenceWriter via, String name, boolean counter);

    /** The trace may have lost the descriptors (a ring buffer wrapped): write each again when next used. */
    void forgetDescribed();
}
