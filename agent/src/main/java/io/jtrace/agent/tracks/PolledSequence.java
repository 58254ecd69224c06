package io.jtrace.agent.tracks;

import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.protos.CounterDescriptor;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;

/**
 * The one sequence of a polling data source (jvm.threads, jvm.memory, jvm.jmx): absolute
 * CLOCK_MONOTONIC timestamps, and a fresh header whenever the service asked for one or the writer lost
 * packets. Each header starts a new {@link #epoch}: callers describe their tracks again in every epoch
 * (a lost descriptor would leave later samples on a track trace_processor does not know), keeping the
 * epoch they last described a track in next to the track, so a sample that changes nothing costs no
 * lookup here. Used by one thread at a time, under its owner's lock: {@link PollingInstance}'s (the
 * sampler thread's samples, the producer thread's flush and stop) or {@code GcRecorder}'s (the GC
 * notification thread and the producer thread).
 */
public final class PolledSequence {
    private final ProcessTrack process;
    private final DataSourceContext context;
    private TraceWriter writer;
    /** The packet {@link #beginEvent} opened, until {@link #endEvent}. */
    private ProtoWriter event;
    /** The writer's drop count when {@link #event} was opened. */
    private long eventDrops;
    /** The writer's drop count when the last header was written. */
    private long drops;
    /** Whether that header reached the SMB; if not, the next event tries again. */
    private boolean headerWritten;
    private int epoch;
    /**
     * Set by the producer thread's clear request, read and cleared by the sampler thread's next sample:
     * volatile, so the request needs no lock (the producer thread never waits for a sample).
     */
    private volatile boolean clearRequested;

    public PolledSequence(ProcessTrack process, DataSourceContext context) {
        this.process = process;
        this.context = context;
    }

    public ProcessTrack process() {
        return process;
    }

    public void open() {
        writer = context.newTraceWriter();
        writeHeader();
    }

    /** Call before each sample: writes the header again when the sequence's state may be gone. */
    public void beginSample() {
        ready();
    }

    /**
     * Whether an event written now decodes: the header is written again first when the service asked
     * for it or the writer lost a packet since the last one (trace_processor drops every packet that
     * needs incremental state after a loss until the next header); false when even the header could not
     * be written (the SMB is full), so the caller writes nothing it could not decode. Checked before
     * every event, not once per sample: a loss in the middle of a sample must not leave the rest of it
     * undecodable.
     */
    private boolean ready() {
        if (!headerWritten || clearRequested || drops != writer.droppedPackets()) {
            writeHeader();
        }
        return headerWritten;
    }

    private void writeHeader() {
        long before = writer.droppedPackets();
        ProtoWriter p = writer.beginPacket();
        SequenceHeader.write(p, 0);
        writer.endPacket();
        process.writeProcessDescriptor(writer, epoch == 0);
        epoch++;
        clearRequested = false;
        drops = writer.droppedPackets();
        headerWritten = drops == before;
    }

    public void clearIncrementalState() {
        clearRequested = true;
    }

    /** Which header the sequence is in: tracks described in an earlier one must be described again. */
    public int epoch() {
        return epoch;
    }

    /**
     * Whether a track last described in epoch {@code describedIn} must be described now, before its next
     * event; the caller then notes {@link #epoch()} as the track's. The header is brought up to date first
     * ({@link #ready}): a loss earlier in the sample starts a new epoch at the next event, and that event
     * must find its track described in it. False when nothing can be written now (the SMB is full): no
     * event is written either. (Should a loss take the descriptors themselves, the next event starts a
     * new epoch without them; the track is described again when its caller next asks.)
     */
    public boolean needsDescribing(int describedIn) {
        return ready() && describedIn != epoch;
    }

    public TraceWriter writer() {
        return writer;
    }

    /** Describes a counter track under {@code parentUuid}, in {@code unit}. */
    public void describeCounter(long trackUuid, long parentUuid, String name, CounterDescriptor.Unit unit) {
        ProcessTrack.writeTrack(writer.beginPacket(), trackUuid, parentUuid, name, unit);
        writer.endPacket();
    }

    /** Describes a slice track named {@code name} under {@code parentUuid}. */
    public void describeSliceTrack(long trackUuid, long parentUuid, String name) {
        ProcessTrack.writeTrack(writer.beginPacket(), trackUuid, parentUuid, name, null);
        writer.endPacket();
    }

    /** Writes a counter sample; false when it did not reach the SMB (it is lost, and counted as a drop). */
    public boolean counter(long trackUuid, long timestamp, long value) {
        ProtoWriter p = beginEvent(timestamp, TrackEvent.Type.TYPE_COUNTER_VALUE, trackUuid);
        if (p == null) {
            return false;
        }
        p.varint(TrackEvent.COUNTER_VALUE_FIELD_NUMBER, value);
        return endEvent();
    }

    /** Writes a counter sample; false when it did not reach the SMB (it is lost, and counted as a drop). */
    public boolean counter(long trackUuid, long timestamp, double value) {
        ProtoWriter p = beginEvent(timestamp, TrackEvent.Type.TYPE_COUNTER_VALUE, trackUuid);
        if (p == null) {
            return false;
        }
        p.doubleField(TrackEvent.DOUBLE_COUNTER_VALUE_FIELD_NUMBER, value);
        return endEvent();
    }

    /**
     * Opens a track event packet (slice begin/end, instant, counter) on {@code trackUuid}: the caller adds
     * its fields (name, annotations) and calls {@link #endEvent}. Null when the sequence cannot carry an
     * event now (see {@link #ready}): the caller writes nothing.
     */
    public ProtoWriter beginEvent(long timestamp, int type, long trackUuid) {
        if (!ready()) {
            return null;
        }
        eventDrops = writer.droppedPackets();
        ProtoWriter p = writer.beginPacket();
        p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, timestamp);
        // The timestamp means CLOCK_MONOTONIC only through the sequence's packet defaults.
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE);
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER, type);
        p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, trackUuid);
        event = p;
        return p;
    }

    /** Closes the event {@link #beginEvent} opened; false when it was dropped (the SMB was full). */
    public boolean endEvent() {
        event.endNested();
        event = null;
        writer.endPacket();
        return writer.droppedPackets() == eventDrops;
    }

    public void flush() {
        if (writer != null) {
            writer.flush();
        }
    }

    public void close() {
        if (writer != null) {
            writer.close();
        }
    }
}
