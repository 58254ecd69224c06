package io.jtrace.agent.jfr;

import io.jtrace.agent.tracks.ProcessTrack;
import io.jtrace.jfr.format.TrackUuids;

/**
 * The agent's track uuids for {@code jvm.jfr}: a JFR event of a thread lands on the same track as that
 * thread's {@code track_event} slices (same OS tid, same uuid), a virtual thread's on its virtual-thread
 * track, and JFR's own tracks (counters, thread-less events) under the agent's process track.
 */
public final class AgentTrackUuids implements TrackUuids {
    private final ProcessTrack process;

    public AgentTrackUuids(ProcessTrack process) {
        this.process = process;
    }

    @Override
    public long process() {
        return process.uuid();
    }

    @Override
    public long thread(long tid) {
        return process.threadUuid(tid);
    }

    @Override
    public long virtualThread(long javaThreadId) {
        return process.virtualThreadUuid(javaThreadId);
    }

    @Override
    public long named(String name) {
        return process.namedUuid("jfr: " + name);
    }
}
