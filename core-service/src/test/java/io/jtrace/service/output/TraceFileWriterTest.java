package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.service.buffer.PacketSink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceFileWriterTest {
    @TempDir
    Path dir;

    private static TracePacket packetOfSize(int approxBytes, int seq) {
        return TracePacket.newBuilder()
                .setTimestamp(1000L + seq)
                .setTrustedPacketSequenceId(7)
                .setTrackEvent(TrackEvent.newBuilder().setName("p" + seq).addCategories("c".repeat(approxBytes)))
                .build();
    }

    @Test
    void packetsWrittenAsBodyAndTrailerParseBackAsATraceWithTheSamePackets() throws IOException {
        List<TracePacket> packets = new ArrayList<>();
        packets.add(TracePacket.newBuilder().setTimestamp(1).build());
        packets.add(packetOfSize(10, 1));
        packets.add(packetOfSize(126, 2)); // around the 1-byte / 2-byte length boundary
        packets.add(packetOfSize(200, 3)); // >= 128 bytes: 2-byte length varint
        packets.add(packetOfSize(20_000, 4)); // >= 16 KiB: 3-byte length varint
        packets.add(packetOfSize(3_000_000, 5)); // >= 2 MiB: 4-byte length varint
        packets.add(packetOfSize(50, 6));
        for (int i = 0; i < 5000; i++) { // ~750 KB of packets: the write buffer fills and drains several times
            packets.add(packetOfSize(i % 300, 100 + i));
        }
        assertTrue(packets.get(3).getSerializedSize() >= 128);
        assertTrue(packets.get(4).getSerializedSize() >= 16 * 1024);
        Path file = dir.resolve("sub/dir/out.pftrace");

        long bytes;
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            for (TracePacket p : packets) {
                // The body without the sequence id, the trailer with it, as the read-out hands them over.
                byte[] b = p.toBuilder().clearTrustedPacketSequenceId().build().toByteArray();
                byte[] trailer = p.hasTrustedPacketSequenceId()
                        ? TracePacket.newBuilder().setTrustedPacketSequenceId(p.getTrustedPacketSequenceId()).build().toByteArray()
                        : PacketSink.NO_TRAILER;
                // Embed both parts in larger arrays to check that offset and lengths are honoured.
                byte[] framed = new byte[b.length + 10];
                System.arraycopy(b, 0, framed, 3, b.length);
                byte[] trailerSpace = Arrays.copyOf(trailer, trailer.length + 7);
                writer.packet(framed, 3, b.length, trailerSpace, trailer.length);
            }
            bytes = writer.bytes();
            writer.flush();
            assertEquals(packets.size(), writer.packets(), "every packet in the file once flushed");
        }

        byte[] content = Files.readAllBytes(file);
        assertEquals(bytes, content.length, "bytes() counts what was written");
        Trace trace = Trace.parseFrom(content);
        for (int i = 0; i < packets.size(); i++) {
            assertEquals(packets.get(i), trace.getPacket(i), "packet " + i);
        }
        assertEquals(packets.size(), trace.getPacketCount());
        assertEquals(Trace.newBuilder().addAllPacket(packets).build().toByteArray().length, content.length,
                "the file is exactly the serialization of Trace");
    }

    @Test
    void emptyTraceFileIsAValidEmptyTrace() throws IOException {
        Path file = dir.resolve("empty.pftrace");
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            assertEquals(0, writer.packets());
        }
        assertEquals(0, Trace.parseFrom(Files.readAllBytes(file)).getPacketCount());
    }

    @Test
    void emptyPacketIsWrittenAsAnEmptyRecord() throws IOException {
        Path file = dir.resolve("zero.pftrace");
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            writer.packet(new byte[0], 0, 0, PacketSink.NO_TRAILER, 0);
            byte[] one = TracePacket.newBuilder().setTimestamp(5).build().toByteArray();
            writer.packet(one, 0, one.length, PacketSink.NO_TRAILER, 0);
        }
        Trace trace = Trace.parseFrom(Files.readAllBytes(file));
        assertEquals(List.of(TracePacket.getDefaultInstance(), TracePacket.newBuilder().setTimestamp(5).build()),
                trace.getPacketList());
    }
}
