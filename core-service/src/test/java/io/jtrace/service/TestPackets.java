package io.jtrace.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The packets test data sources write: timestamp = index, track_event { track_uuid = tag, name }.
 * The tag says who wrote it (a writer, a session...), the index its place in that writer's order.
 */
final class TestPackets {
    private TestPackets() {}

    static String name(long tag, long index) {
        return "packet-" + tag + "-" + index;
    }

    static void write(TraceWriter writer, long tag, long index) {
        ProtoWriter p = writer.beginPacket();
        p.varint(8, index); // timestamp
        p.beginNested(11); // track_event
        p.varint(11, tag); // track_uuid
        p.string(23, name(tag, index)); // name
        p.endNested();
        writer.endPacket();
    }

    static TracePacket expected(long tag, long index) {
        return TracePacket.newBuilder()
                .setTimestamp(index)
                .setTrackEvent(TrackEvent.newBuilder().setTrackUuid(tag).setName(name(tag, index)))
                .build();
    }

    /** Like {@link #write} with a category string of {@code padding} characters, to vary the packet size. */
    static void writePadded(TraceWriter writer, long tag, long index, int padding) {
        ProtoWriter p = writer.beginPacket();
        p.varint(8, index);
        p.beginNested(11);
        p.varint(11, tag);
        p.string(23, name(tag, index));
        p.string(22, "p".repeat(padding)); // categories
        p.endNested();
        writer.endPacket();
    }

    static TracePacket expectedPadded(long tag, long index, int padding) {
        return TracePacket.newBuilder()
                .setTimestamp(index)
                .setTrackEvent(TrackEvent.newBuilder().setTrackUuid(tag).setName(name(tag, index))
                        .addCategories("p".repeat(padding)))
                .build();
    }

    /** The packet as the producer wrote it: without the fields the service adds when reading out. */
    static TracePacket withoutServiceFields(TracePacket p) {
        return p.toBuilder().clearTrustedUid().clearTrustedPacketSequenceId().clearTrustedPid()
                .clearFirstPacketOnSequence().clearPreviousPacketDropped().build();
    }

    /**
     * Every packet is attributed to the producer {@code pid}/{@code uid}: the service stamps them on the
     * first packet it delivers from each chunk (and on track descriptors), so each packet either carries
     * them or follows one on its sequence that does, and every stamp names that producer.
     */
    static void assertAttributedTo(List<TracePacket> packets, int pid, int uid) {
        Set<Integer> identified = new HashSet<>();
        for (TracePacket p : packets) {
            if (p.hasTrustedPid() || p.hasTrustedUid()) {
                assertEquals(pid, p.getTrustedPid(), "trusted_pid");
                assertEquals(uid, p.getTrustedUid(), "trusted_uid");
                identified.add(p.getTrustedPacketSequenceId());
            }
            assertTrue(identified.contains(p.getTrustedPacketSequenceId()),
                    "a packet on sequence " + p.getTrustedPacketSequenceId() + " before any trusted pid/uid on it");
        }
    }
}
