package io.jtrace.jfr.format;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.shm.proto.ProtoWriter;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedThread;

/**
 * A {@link TrackLayout} over a {@link ProcessTrack}, which writes each track's descriptor the first time
 * the track is used: the process, thread tracks (pid, tid, name: trace_processor joins them with every
 * other source of the same thread), virtual-thread and named tracks under the process, counter tracks.
 * Uuids are the process track's, so a live JFR event lands on the track of its thread's
 * {@code track_event} slices, and a recording merged into an agent's trace on the agent's tracks.
 */
public final class DescribedTracks implements TrackLayout {
    /**
     * JFR's named tracks (counters, events without a thread) are keyed {@code "jfr: <name>"} under the
     * process, so they never share a uuid with the agent's own named tracks (GC, memory counters).
     */
    private static final String NAMED_TRACK_KEY_PREFIX = "jfr: ";

    private final ProcessTrack process;
    private final boolean describeProcess;
    private final Map<Long, Long> existingThreads;
    private final LongSet described = new LongSet();
    private final LongSet alreadyInTrace;

    /**
     * {@code describeProcess} false leaves the process's descriptor to its owner (the trace merged into);
     * {@code existingThreads} are the uuids a trace already has for threads (by tid), which take
     * precedence; {@code alreadyInTrace} are uuids whose descriptors exist and are never written again.
     */
    public DescribedTracks(ProcessTrack process, boolean describeProcess, Map<Long, Long> existingThreads,
            Set<Long> alreadyInTrace) {
        this.process = process;
        this.describeProcess = describeProcess;
        this.existingThreads = Map.copyOf(existingThreads);
        this.alreadyInTrace = new LongSet(alreadyInTrace);
    }

    @Override
    public int pid() {
        return process.pid();
    }

    @Override
    public long threadTrack(SequenceWriter via, RecordedThread thread) {
        long tid = thread.getOSThreadId();
        if (tid <= 0) {
            long javaThreadId = thread.getJavaThreadId();
            long uuid = process.virtualThreadUuid(javaThreadId);
            if (needsDescriptor(uuid)) {
                writeChild(via, uuid, ProcessTrack.virtualThreadTrackName(ThreadNames.of(thread), javaThreadId), false);
            }
            return uuid;
        }
        Long existing = existingThreads.isEmpty() ? null : existingThreads.get(tid);
        long uuid = existing != null ? existing : process.threadUuid(tid);
        if (needsDescriptor(uuid)) {
            describeProcess(via);
            process.writeThreadDescriptor(via.beginPlainPacket(), uuid, tid, ThreadNames.of(thread));
            via.endPacket();
        }
        return uuid;
    }

    @Override
    public long namedUuid(String name) {
        return process.namedUuid(NAMED_TRACK_KEY_PREFIX + name);
    }

    @Override
    public void describeNamed(SequenceWriter via, long uuid, String name, boolean counter) {
        if (needsDescriptor(uuid)) {
            writeChild(via, uuid, name, counter);
        }
    }

    @Override
    public void forgetDescribed() {
        described.clear();
    }

    private boolean needsDescriptor(long uuid) {
        return !alreadyInTrace.contains(uuid) && described.add(uuid);
    }

    private void writeChild(SequenceWriter via, long uuid, String name, boolean counter) {
        describeProcess(via);
        process.writeNamedTrack(via.beginPlainPacket(), uuid, name, counter);
        via.endPacket();
    }

    /** The parent of named tracks must be described too, unless its owner (the trace) does it. */
    private void describeProcess(SequenceWriter via) {
        if (!describeProcess || !needsDescriptor(process.uuid())) {
            return;
        }
        process.writeProcessDescriptor(via.beginPlainPacket(), false);
        via.endPacket();
    }
}
