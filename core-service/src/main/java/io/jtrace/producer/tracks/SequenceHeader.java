package io.jtrace.producer.tracks;

import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TracePacketDefaults;
import io.jtrace.protos.TrackEventDefaults;
import io.jtrace.shm.proto.ProtoWriter;

/** The fields every jtrace sequence opens with: incremental state cleared, clock and track defaults. */
public final class SequenceHeader {
    public static final int SEQ_INCREMENTAL_STATE_CLEARED = 1;
    public static final int SEQ_NEEDS_INCREMENTAL_STATE = 2;
    /**
     * The sequence-scoped clock (Perfetto reserves ids 64..127 for them) of track_event sequences: each
     * packet's timestamp is the nanoseconds since the sequence's previous timestamp.
     */
    public static final int INCREMENTAL_CLOCK_ID = 64;

    private SequenceHeader() {}

    /**
     * Writes, into an open packet, sequence_flags = INCREMENTAL_STATE_CLEARED and defaults saying the
     * sequence's timestamps are CLOCK_MONOTONIC ({@code System.nanoTime()}) and its track events go to
     * {@code defaultTrackUuid} unless they name a track.
     */
    public static void write(ProtoWriter p, long defaultTrackUuid) {
        writeDefaults(p, BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE, defaultTrackUuid);
    }

    /**
     * Writes, into an open packet, sequence_flags = INCREMENTAL_STATE_CLEARED and a default saying the
     * sequence's timestamps are on {@code clockId} (a {@code BuiltinClock}), with no default track.
     */
    public static void writeOnClock(ProtoWriter p, int clockId) {
        writeDefaults(p, clockId, 0);
    }

    /**
     * Like {@link #write}, but the sequence's timestamps are deltas on {@link #INCREMENTAL_CLOCK_ID}: a
     * clock snapshot sets that clock to {@code baseTimestamp} (CLOCK_MONOTONIC), and every later
     * timestamp on the sequence adds to the previous one. A slice's timestamps then take 1 to 3 bytes
     * instead of 7. The packet holds a clock_snapshot, so it cannot also hold a track_descriptor (they
     * share TracePacket's data oneof). The service passes none of the sequence's packets that need
     * this state (flagged NEEDS_INCREMENTAL_STATE, or in a chunk flagged so) on from a loss until the
     * next header, so a lost delta never shifts a later event.
     */
    public static void writeIncremental(ProtoWriter p, long defaultTrackUuid, long baseTimestamp) {
        writeDefaults(p, INCREMENTAL_CLOCK_ID, defaultTrackUuid);
        p.beginNested(TracePacket.CLOCK_SNAPSHOT_FIELD_NUMBER);
        p.beginNested(ClockSnapshot.CLOCKS_FIELD_NUMBER);
        p.varint(ClockSnapshot.Clock.CLOCK_ID_FIELD_NUMBER, BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE);
        p.varint(ClockSnapshot.Clock.TIMESTAMP_FIELD_NUMBER, baseTimestamp);
        p.endNested();
        p.beginNested(ClockSnapshot.CLOCKS_FIELD_NUMBER);
        p.varint(ClockSnapshot.Clock.CLOCK_ID_FIELD_NUMBER, INCREMENTAL_CLOCK_ID);
        p.varint(ClockSnapshot.Clock.TIMESTAMP_FIELD_NUMBER, baseTimestamp);
        p.varint(ClockSnapshot.Clock.IS_INCREMENTAL_FIELD_NUMBER, 1);
        p.endNested();
        p.endNested();
    }

    private static void writeDefaults(ProtoWriter p, int clockId, long defaultTrackUuid) {
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SEQ_INCREMENTAL_STATE_CLEARED);
        p.beginNested(TracePacket.TRACE_PACKET_DEFAULTS_FIELD_NUMBER);
        p.varint(TracePacketDefaults.TIMESTAMP_CLOCK_ID_FIELD_NUMBER, clockId);
        if (defaultTrackUuid != 0) {
            p.beginNested(TracePacketDefaults.TRACK_EVENT_DEFAULTS_FIELD_NUMBER);
            p.varint(TrackEventDefaults.TRACK_UUID_FIELD_NUMBER, defaultTrackUuid);
            p.endNested();
        }
        p.endNested();
    }
}
