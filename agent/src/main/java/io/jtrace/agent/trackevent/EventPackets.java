package io.jtrace.agent.trackevent;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.api.AsyncTrack;
import io.jtrace.api.Category;
import io.jtrace.api.spi.EventData;
import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.EventCategory;
import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;

/**
 * Encodes one track event into a sequence that is ready for it (see {@code TrackEventDataSource.enter}):
 * the smallest form {@link SmallEventEncoder} allows, else a full packet with what the sequence has not
 * interned yet, the event's annotations and flows, and the descriptor of an async track the session has
 * not seen in this generation.
 */
final class EventPackets {
    private final ProcessTrack process;

    EventPackets(ProcessTrack process) {
        this.process = process;
    }

    /**
     * A slice begin or end or an instant into {@code s}: interned category and name, on the sequence's
     * default track ({@code threadTrack} 0), on {@code threadTrack} (a pooled sequence's event names its
     * thread's track), or on the event's async track.
     */
    void event(Sequence s, long threadTrack, ActiveSession session, int type, Category category, String name,
               long timestamp, EventData data) {
        int categoryIid = 0;
        int nameIid = 0;
        boolean newCategory = false;
        boolean newName = false;
        if (category != null) {
            categoryIid = s.categoryIid(category);
            newCategory = categoryIid == 0;
            if (newCategory) {
                categoryIid = s.internCategory(category);
            }
        }
        if (name != null) {
            nameIid = s.nameIid(name);
            newName = nameIid == 0;
            if (newName) {
                nameIid = s.internName(name);
            }
        }
        AsyncTrack async = data == null ? null : data.track();
        long track = async != null ? async.uuid() : threadTrack;
        // s.generation: the generation enter() read once for this event and restarted the sequence into.
        if (async != null && session.asyncTrackDescribedIn(async) != s.generation) {
            describeAsyncTrack(s, session, async);
        }
        boolean plain = data == null || data.argCount() == 0 && data.flowCount() == 0 && data.droppedArgs() == 0;
        long delta = s.advanceClock(timestamp);
        if (plain && !newCategory && !newName
                && SmallEventEncoder.tryWrite(s.writer, delta, type, categoryIid, nameIid, track)) {
            return;
        }
        ProtoWriter p = s.writer.beginPacket();
        timestamp(p, timestamp, delta);
        needsIncrementalState(p, s);
        if (newCategory || newName) {
            p.beginNested(TracePacket.INTERNED_DATA_FIELD_NUMBER);
            if (newCategory) {
                p.beginNested(InternedData.EVENT_CATEGORIES_FIELD_NUMBER);
                p.varint(EventCategory.IID_FIELD_NUMBER, categoryIid);
                p.string(EventCategory.NAME_FIELD_NUMBER, category.name());
                p.endNested();
            }
            if (newName) {
                p.beginNested(InternedData.EVENT_NAMES_FIELD_NUMBER);
                p.varint(EventName.IID_FIELD_NUMBER, nameIid);
                p.string(EventName.NAME_FIELD_NUMBER, name);
                p.endNested();
            }
            p.endNested();
        }
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER, type);
        if (categoryIid != 0) {
            p.varint(TrackEvent.CATEGORY_IIDS_FIELD_NUMBER, categoryIid);
        }
        if (nameIid != 0) {
            p.varint(TrackEvent.NAME_IID_FIELD_NUMBER, nameIid);
        }
        if (track != 0) {
            p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, track);
        }
        if (!plain) {
            EventExtras.write(p, data);
        }
        p.endNested();
        s.writer.endPacket();
    }

    /**
     * The descriptor of an async track, before its first event in the session and again after each
     * incremental-state clear (a ring buffer may have overwritten it): a track under the process. Two
     * threads may both write it first; the copies are identical.
     */
    private void describeAsyncTrack(Sequence s, ActiveSession session, AsyncTrack async) {
        int generation = s.generation;
        long dropsBefore = s.writer.droppedPackets();
        s.writer.describing(true);
        try {
            process.writeNamedTrack(s.writer, async.uuid(), async.name(), false);
        } finally {
            s.writer.describing(false);
        }
        if (s.writer.droppedPackets() == dropsBefore) {
            session.asyncTrackDescribed(async, generation);
        }
    }

    /** A counter sample on the process-wide counter track {@code name}, described on first use in the sequence. */
    void counter(Sequence s, String name, long timestamp, long longValue,
                 double doubleValue, boolean isDouble) {
        Long track = s.counterTrack(name);
        if (track == null) {
            track = process.namedUuid("counter:" + name);
            long dropsBefore = s.writer.droppedPackets();
            s.writer.describing(true);
            try {
                process.writeNamedTrack(s.writer, track, name, true);
            } finally {
                s.writer.describing(false);
            }
            if (s.writer.droppedPackets() == dropsBefore) {
                s.counterTrackDescribed(name, track);
            }
        }
        long delta = s.advanceClock(timestamp);
        ProtoWriter p = s.writer.beginPacket();
        timestamp(p, timestamp, delta);
        needsIncrementalState(p, s);
        p.beginNested(TracePacket.TRACK_EVENT_FIELD_NUMBER);
        p.varint(TrackEvent.TYPE_FIELD_NUMBER, TrackEvent.Type.TYPE_COUNTER_VALUE);
        p.varint(TrackEvent.TRACK_UUID_FIELD_NUMBER, track);
        if (isDouble) {
            p.doubleField(TrackEvent.DOUBLE_COUNTER_VALUE_FIELD_NUMBER, doubleValue);
        } else {
            p.varint(TrackEvent.COUNTER_VALUE_FIELD_NUMBER, longValue);
        }
        p.endNested();
        s.writer.endPacket();
    }

    /** sequence_flags = NEEDS_INCREMENTAL_STATE, unless the writer's chunks say it for the packet. */
    private static void needsIncrementalState(ProtoWriter p, Sequence s) {
        if (!s.writer.chunksSayPacketsNeedIncrementalState()) {
            p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE);
        }
    }

    /** A delta on the sequence's incremental clock, or (delta -1) the whole CLOCK_MONOTONIC timestamp. */
    static void timestamp(ProtoWriter p, long timestamp, long delta) {
        if (delta >= 0) {
            p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, delta);
        } else {
            p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, timestamp);
            p.varint(TracePacket.TIMESTAMP_CLOCK_ID_FIELD_NUMBER, BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE);
        }
    }
}
