package io.jtrace.jfr.format;

import jdk.jfr.consumer.RecordedThread;

/**
 * The tracks JFR events land on, and their uuids. A layout remembers which tracks it has described and
 * writes a track's descriptor (through the sequence it is given) the first time the track is used, or
 * again after {@link #forgetDescribed}. The agent's live source backs it with the agent's own track
 * uuids, so JFR events share the thread tracks of the application's own events.
 */
public interface TrackLayout {
    int pid();

    /**
     * The track of {@code thread}: its OS thread's (by tid), or for a thread without one (a virtual
     * thread) a track named like the agent's virtual thread tracks, {@code <name> #<java thread id>}.
     * The thread's name is read only when the track is new.
     */
    long threadTrack(SequenceWriter via, RecordedThread thread);

    /** The uuid of the track named {@code name} under the process; the same for the same name. */
    long namedUuid(String name);

    /** Describes the track {@code uuid} = {@link #namedUuid}({@code name}) unless it is; a counter track when {@code counter}. */
    void describeNamed(SequenceWriter via, long uuid, String name, boolean counter);

    /** The trace may have lost the descriptors (a ring buffer wrapped): write each again when next used. */
    void forgetDescribed();
}
