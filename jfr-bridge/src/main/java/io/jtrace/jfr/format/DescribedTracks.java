package io.jtrace.jfr.format;

import io.jtrace.protos.ProcessDescriptor;
import io.jtrace.protos.ThreadDescriptor;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.shm.proto.ProtoWriter;
import java.util.HashSet;
import java.util.Set;

/**
 * A {@link TrackLayout} that writes each track's descriptor the first time the track is used: the
 * process, thread tracks (pid, tid, name: trace_processor joins them with every other source of the
 * same thread), virtual-thread and named tracks under the process, counter tracks.
 */
public final class DescribedTracks implements TrackLayout {
    private final int pid;
    private final String processName;
    private final TrackUuids uuids;
    private final Set<Long> described = new HashSet<>();
    private final Set<Long> alreadyInTrace;

    /**
     * {@code processName} null leaves the process's descriptor to someone else (the agent writes its
     * own); {@code alreadyInTrace} are uuids whose descriptors exist and are never written again.
     */
    public DescribedTracks(int pid, String processName, TrackUuids uuids, Set<Long> alreadyInTrace) {
        this.pid = pid;
        this.processName = processName;
        this.uuids = uuids;
        this.alreadyInTrace = Set.copyOf(alreadyInTrace);
    }

    @Override
    public int pid() {
        return pid;
    }

    @Override
    public long threadTrack(SequenceWriter via, long tid, String name) {
        long uuid = uuids.thread(tid);
        if (needsDescriptor(uuid)) {
            describeProcess(via);
            ProtoWriter p = via.beginPlainPacket();
            p.beginNested(TracePacket.TRACK_DESCRIPTOR_FIELD_NUMBER);
            p.varint(TrackDescriptor.UUID_FIELD_NUMBER, uuid);
            p.beginNested(TrackDescriptor.THREAD_FIELD_NUMBER);
            p.varint(ThreadDescriptor.PID_FIELD_NUMBER, pid);
            p.varint(ThreadDescriptor.TID_FIELD_NUMBER, tid);
            p.string(ThreadDescriptor.THREAD_NAME_FIELD_NUMBER, name);
            p.endNested();
            p.endNested();
            via.endPacket();
        }
        return uuid;
    }

    @Override
    public long virtualThreadTrack(SequenceWriter via, long javaThreadId, String name) {
        long uuid = uuids.virtualThread(javaThreadId);
        if (needsDescriptor(uuid)) {
            writeChild(via, uuid, (name.isEmpty() ? "virtual thread" : name) + " #" + javaThreadId, false);
        }
        return uuid;
    }

    @Override
    public long namedTrack(SequenceWriter via, String name, boolean counter) {
        long uuid = uuids.named(name);
        if (needsDescriptor(uuid)) {
            writeChild(via, uuid, name, counter);
        }
        return uuid;
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
        ProtoWriter p = via.beginPlainPacket();
        p.beginNested(TracePacket.TRACK_DESCRIPTOR_FIELD_NUMBER);
        p.varint(TrackDescriptor.UUID_FIELD_NUMBER, uuid);
        p.varint(TrackDescriptor.PARENT_UUID_FIELD_NUMBER, uuids.process());
        p.string(TrackDescriptor.NAME_FIELD_NUMBER, name);
        if (counter) {
            p.beginNested(TrackDescriptor.COUNTER_FIELD_NUMBER);
            p.endNested();
        }
        p.endNested();
        via.endPacket();
    }

    /** The parent of named tracks must be described too, unless its owner (the agent, the trace) does it. */
    private void describeProcess(SequenceWriter via) {
        long uuid = uuids.process();
        if (processName == null || !needsDescriptor(uuid)) {
            return;
        }
        ProtoWriter p = via.beginPlainPacket();
        p.beginNested(TracePacket.TRACK_DESCRIPTOR_FIELD_NUMBER);
        p.varint(TrackDescriptor.UUID_FIELD_NUMBER, uuid);
        p.beginNested(TrackDescriptor.PROCESS_FIELD_NUMBER);
        p.varint(ProcessDescriptor.PID_FIELD_NUMBER, pid);
        p.string(ProcessDescriptor.PROCESS_NAME_FIELD_NUMBER, processName);
        p.endNested();
        p.endNested();
        via.endPacket();
    }
}
