package io.jtrace.agent.tracks;

import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TracePacketDefaults;
import io.jtrace.protos.TrackEventDefaults;
import io.jtrace.shm.proto.ProtoWriter;

/** The fields every jtrace sequence opens with: incremental state cleared, clock and track defaults. */
public final class SequenceHeader {
    public static final int SEQ_INCREMENTAL_STATE_CLEARED = 1;
    public static final int SEQ_NEEDS_INCREMENTAL_STATE = 2;

    private SequenceHeader() {}

    /**
     * Writes, into an open packet, sequence_flags = INCREMENTAL_STATE_CLEARED and defaults saying the
     * sequence's timestamps are CLOCK_MONOTONIC ({@code System.nanoTime()}) and its track events go to
     * {@code defaultTrackUuid} unless they name a track.
     */
    public static void write(ProtoWriter p, long defaultTrackUuid) {
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SEQ_INCREMENTAL_STATE_CLEARED);
        p.beginNested(TracePacket.TRACE_PACKET_DEFAULTS_FIELD_NUMBER);
        p.varint(TracePacketDefaults.TIMESTAMP_CLOCK_ID_FIELD_NUMBER, BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE);
        if (defaultTrackUuid != 0) {
            p.beginNested(TracePacketDefaults.TRACK_EVENT_DEFAULTS_FIELD_NUMBER);
            p.varint(TrackEventDefaults.TRACK_UUID_FIELD_NUMBER, defaultTrackUuid);
            p.endNested();
        }
        p.endNested();
    }
}
