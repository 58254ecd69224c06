package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.TRUSTED_IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.commit;
import static io.jtrace.service.buffer.BufferTesting.commitPadded;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.pkt;
import static io.jtrace.service.buffer.ChunkPayload.withSlot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.output.TraceFileWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File-framed chunks (what jtrace's writers commit): each frame opens with the Trace.packet tag and each
 * packet ends with a sequence id slot. Whatever the framing and the producer's trust, the packets that
 * reach a file must be the ones a Perfetto-framed twin of the same chunks gives; of a trusted producer
 * they go as whole runs, stamped in place.
 */
class FileFramedReadOutTest {
    /** Trusted, with sequence ids past what a slot's two varint bytes hold. */
    private static final SequenceIdentity TRUSTED_BIG_IDS = BufferTesting.trusted(20_000);

    @TempDir
    Path dir;

    /**
     * Every case a run must stop at or hand over whole, framed either way: drop markers mid-chunk, an
     * empty packet, fragments at both ends (one split inside the slot), a missing chunk, 1-byte sizes,
     * and a packet larger than the file writer's buffer.
     */
    private static TraceBuffer everyKindOfChunk(boolean fileFramed) {
        Supplier<ChunkPayload> chunk = fileFramed ? ChunkPayload::fileFramedChunk : ChunkPayload::chunk;
        TraceBuffer buffer = new TraceBuffer(4 << 20, TraceBuffer.Policy.RING);
        ChunkPayload a = chunk.get();
        for (int i = 0; i < 8; i++) {
            a.packet(pkt("a" + i));
        }
        commitPadded(buffer, 1, 0, a);
        byte[] split = slotted(pkt("c-split-across-chunks").toByteArray(), fileFramed);
        byte[] empty = slotted(new byte[0], fileFramed);
        commitPadded(buffer, 1, 1, chunk.get().packet(pkt("b0")).packet(pkt("b1")).dropMarker().packet(pkt("b2"))
                .frame(empty).packet(pkt("b3")).frame(Arrays.copyOf(split, 9)).lastContinuesOnNext());
        commitPadded(buffer, 1, 2, chunk.get().frame(Arrays.copyOfRange(split, 9, split.length)).firstContinuesFromPrev()
                .packet(pkt("d0")).packet(pkt("d1")).packet(pkt("d2")).dropMarker());
        // Chunk 3 never comes: e0 reports the loss. Chunk 4's packets have 1-byte sizes where they can.
        ChunkPayload e = chunk.get();
        for (String name : List.of("e0", "e1", "e2")) {
            byte[] bytes = slotted(pkt(name).toByteArray(), fileFramed);
            if (fileFramed) {
                e.shortFrame(bytes);
            } else {
                e.frame(bytes);
            }
        }
        commitPadded(buffer, 1, 4, e);
        commit(buffer, 2, 0, chunk.get().packet(pkt("f0")).packet(pkt("f1-" + "x".repeat(300)))
                .packet(pkt("f2-" + "y".repeat(300 * 1024))).packet(pkt("f3")));
        byte[] inSlot = slotted(pkt("g-split-in-its-slot").toByteArray(), fileFramed);
        commitPadded(buffer, 3, 0, chunk.get().packet(pkt("g0")).frame(Arrays.copyOf(inSlot, inSlot.length - 1))
                .lastContinuesOnNext());
        commitPadded(buffer, 3, 1, chunk.get().frame(Arrays.copyOfRange(inSlot, inSlot.length - 1, inSlot.length))
                .firstContinuesFromPrev().packet(pkt("g1")));
        return buffer;
    }

    private static byte[] slotted(byte[] packet, boolean fileFramed) {
        return fileFramed ? withSlot(packet) : packet;
    }

    private List<TracePacket> readIntoFile(TraceBuffer buffer, SequenceIdentity identity) throws IOException {
        Path file = Files.createTempFile(dir, "read", ".pftrace");
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            long delivered = buffer.readAll(identity, writer, true);
            writer.flush();
            assertEquals(delivered, writer.packets(), "the file counts every packet delivered");
        }
        return Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
    }

    private static final List<String> EVERY_NAME = List.of("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "b0", "b1",
            "b2", "b3", "c-split-across-chunks", "d0", "d1", "d2", "e0", "e1", "e2", "f0", "f1-" + "x".repeat(300),
            "f2-" + "y".repeat(300 * 1024), "f3", "g0", "g-split-in-its-slot", "g1");

    private void assertSameAsPerfettoFramed(SequenceIdentity identity) throws IOException {
        List<TracePacket> perfetto = readIntoFile(everyKindOfChunk(false), identity);
        List<TracePacket> fileFramed = readIntoFile(everyKindOfChunk(true), identity);

        assertEquals(perfetto, fileFramed);
        assertEquals(EVERY_NAME, names(fileFramed));
        List<String> markedDropped = new ArrayList<>();
        fileFramed.stream().filter(BufferTesting::dropMarked).forEach(p -> markedDropped.add(p.getTrackEvent().getName()));
        assertEquals(List.of("b2", "e0"), markedDropped, "after the drop marker, and after the chunk that never came");
        for (TracePacket p : fileFramed) {
            int writer = p.getTrackEvent().getName().startsWith("f") ? 2 : p.getTrackEvent().getName().startsWith("g") ? 3 : 1;
            assertEquals(identity.sequenceId(PRODUCER, writer), p.getTrustedPacketSequenceId(),
                    p.getTrackEvent().getName() + " names its own sequence");
        }
    }

    @Test
    void aTrustedProducersFileFramedChunksGiveThePacketsOfTheirPerfettoFramedTwins() throws IOException {
        assertSameAsPerfettoFramed(TRUSTED_IDENTITY);
    }

    @Test
    void anUntrustedProducersFileFramedChunksGiveThePacketsOfTheirPerfettoFramedTwins() throws IOException {
        assertSameAsPerfettoFramed(IDENTITY);
    }

    @Test
    void sequenceIdsTooLargeForASlotGetTheirTrailerInstead() throws IOException {
        assertTrue(TRUSTED_BIG_IDS.sequenceId(PRODUCER, 1) > 1 << 14);
        assertSameAsPerfettoFramed(TRUSTED_BIG_IDS);
    }

    @Test
    void anyOtherSinkGetsTheTrustedRunsOnePacketAtATime() throws IOException {
        List<TracePacket> joined = new ArrayList<>();
        everyKindOfChunk(true).readAll(TRUSTED_IDENTITY, PacketSink.joined((bytes, offset, length) -> {
            try {
                joined.add(TracePacket.parseFrom(Arrays.copyOfRange(bytes, offset, offset + length)));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }), true);

        assertEquals(readIntoFile(everyKindOfChunk(true), TRUSTED_IDENTITY), joined);
    }

    /** Counts how packets reach it: one by one, or as framed runs. */
    private static final class CountingSink implements PacketSink {
        int single;
        final List<Integer> runs = new ArrayList<>();

        @Override
        public void packet(byte[] body, int bodyOffset, int bodyLength, byte[] trailer, int trailerLength) {
            single++;
        }

        @Override
        public void framedPackets(byte[] data, int offset, int length, int count) {
            runs.add(count);
        }
    }

    @Test
    void aTrustedProducersPlainPacketsAfterTheFirstOfAChunkGoAsOneRun() {
        ChunkPayload c = ChunkPayload.fileFramedChunk();
        for (int i = 0; i < 8; i++) {
            c.packet(pkt("a" + i));
        }
        TraceBuffer trusted = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(trusted, 1, 0, c);
        TraceBuffer untrusted = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(untrusted, 1, 0, c);
        CountingSink toTrusted = new CountingSink();
        CountingSink toUntrusted = new CountingSink();

        trusted.readAll(TRUSTED_IDENTITY, toTrusted, true);
        untrusted.readAll(IDENTITY, toUntrusted, true);

        assertEquals(1, toTrusted.single, "the first packet, which carries the producer's identity");
        assertEquals(List.of(7), toTrusted.runs);
        assertEquals(8, toUntrusted.single, "an untrusted producer's packets are each validated and framed");
        assertEquals(List.of(), toUntrusted.runs);
    }

    @Test
    void aPacketWithoutItsSlotIsCountedInvalidAndTheNextSaysSo() throws IOException {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        commitPadded(buffer, 1, 0, ChunkPayload.fileFramedChunk().packet(pkt("p0")).packet(pkt("p1"))
                .frame(pkt("no-slot").toByteArray()).packet(pkt("p3")).packet(pkt("p4")));

        List<TracePacket> packets = readIntoFile(buffer, TRUSTED_IDENTITY);

        assertEquals(List.of("p0", "p1", "p3", "p4"), names(packets));
        assertTrue(BufferTesting.dropMarked(packets.get(2)), "the packet after the invalid one reports the loss");
        assertEquals(1, buffer.counters().invalidPackets());
    }

    @Test
    void aFrameWithoutItsTagEndsTheChunkAsAnAbiViolation() throws IOException {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        byte[] untagged = withSlot(pkt("untagged").toByteArray());
        commitPadded(buffer, 1, 0, ChunkPayload.fileFramedChunk().packet(pkt("p0")).packet(pkt("p1"))
                .raw(untagged.length).raw(toInts(untagged)).count(4));
        commitPadded(buffer, 1, 1, ChunkPayload.fileFramedChunk().packet(pkt("q0")));

        List<TracePacket> packets = readIntoFile(buffer, TRUSTED_IDENTITY);

        assertEquals(List.of("p0", "p1", "q0"), names(packets));
        assertTrue(BufferTesting.dropMarked(packets.get(2)));
        assertEquals(1, BufferTesting.stats(buffer).getAbiViolations());
    }

    private static int[] toInts(byte[] bytes) {
        int[] out = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            out[i] = bytes[i] & 0xFF;
        }
        return out;
    }
}
