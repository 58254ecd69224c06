package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.CHUNK_BYTES;
import static io.jtrace.service.buffer.BufferTesting.IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.TRUSTED_IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.pkt;
import static io.jtrace.service.buffer.BufferTesting.stats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.TracePacket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A flush of a session that streams into a file copies the chunks writers still hold (a thread that went
 * quiet has its last events there). The read-out takes a trusted writer's held chunk as far as its
 * counted packets go and keeps it; the copy that replaces it (the next flush's, the commit once the
 * chunk is complete, the scrape at the session's end) is read on from there: every packet once, in
 * order, and nothing counted lost.
 */
class HeldChunkReadOutTest {
    private static final int WRITER = 1;

    private static ChunkPayload framed(String... names) {
        ChunkPayload c = ChunkPayload.fileFramedChunk();
        for (String name : names) {
            c.packet(pkt(name));
        }
        return c;
    }

    private static void scrape(TraceBuffer buffer, int chunkId, ChunkPayload c) {
        scrape(buffer, WRITER, chunkId, c);
    }

    private static void scrape(TraceBuffer buffer, int writer, int chunkId, ChunkPayload c) {
        assertTrue(buffer.copyChunk(PRODUCER, writer, chunkId, c.packetsWord(), c.bytesPaddedTo(CHUNK_BYTES), false));
    }

    private static void commit(TraceBuffer buffer, int chunkId, ChunkPayload c) {
        commit(buffer, WRITER, chunkId, c);
    }

    private static void commit(TraceBuffer buffer, int writer, int chunkId, ChunkPayload c) {
        assertTrue(buffer.copyChunk(PRODUCER, writer, chunkId, c.packetsWord(), c.bytesPaddedTo(CHUNK_BYTES), true));
    }

    private static List<TracePacket> read(TraceBuffer buffer, SequenceIdentity identity, boolean sessionEnded) {
        List<TracePacket> packets = new ArrayList<>();
        long delivered = buffer.readAll(identity, PacketSink.joined((bytes, offset, length) -> {
            try {
                packets.add(TracePacket.parseFrom(Arrays.copyOfRange(bytes, offset, offset + length)));
            } catch (InvalidProtocolBufferException e) {
                throw new AssertionError(e);
            }
        }), sessionEnded);
        assertEquals(packets.size(), delivered);
        return packets;
    }

    /** No chunk discarded, and no packet of {@code reads} reports a loss. */
    @SafeVarargs
    private static void assertNothingLost(TraceBuffer buffer, List<TracePacket>... reads) {
        assertEquals(0, stats(buffer).getChunksDiscarded(), "chunks discarded");
        for (List<TracePacket> read : reads) {
            assertTrue(read.stream().noneMatch(p -> p.getPreviousPacketDropped() != 0), "a packet reported a loss");
        }
    }

    @Test
    void aHeldChunkIsReadAsFarAsItGoesAndOnFromThereWhenReplaced() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);

        scrape(buffer, 0, framed("a", "b"));
        List<TracePacket> first = read(buffer, TRUSTED_IDENTITY, false);
        scrape(buffer, 0, framed("a", "b", "c"));
        List<TracePacket> second = read(buffer, TRUSTED_IDENTITY, false);
        commit(buffer, 0, framed("a", "b", "c", "d"));
        List<TracePacket> third = read(buffer, TRUSTED_IDENTITY, false);
        commit(buffer, 1, framed("e"));
        List<TracePacket> fourth = read(buffer, TRUSTED_IDENTITY, false);

        assertEquals(List.of("a", "b"), names(first), "the held chunk's packets so far");
        assertEquals(List.of("c"), names(second), "only what the next flush's copy added");
        assertEquals(List.of("d"), names(third), "only what the complete chunk added");
        assertEquals(List.of("e"), names(fourth), "the sequence goes on past the chunk");
        assertNothingLost(buffer, first, second, third, fourth);
        assertTrue(read(buffer, TRUSTED_IDENTITY, true).isEmpty(), "nothing is delivered twice at the end");
    }

    @Test
    void theSessionsEndReadsTheRestOfAPartlyReadChunk() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        scrape(buffer, 0, framed("a", "b"));
        List<TracePacket> running = read(buffer, TRUSTED_IDENTITY, false);
        scrape(buffer, 0, framed("a", "b", "c"));
        List<TracePacket> atEnd = read(buffer, TRUSTED_IDENTITY, true);

        assertEquals(List.of("a", "b"), names(running));
        assertEquals(List.of("c"), names(atEnd));
        assertNothingLost(buffer, running, atEnd);
    }

    /**
     * A thread that stays quiet while others fill a small ring many times over: each flush copies its
     * unchanged chunk again. The copy read is not kept in the ring, so it neither blocks the ring nor is
     * overwritten, and its packet goes out once.
     */
    @Test
    void aQuietThreadsChunkCopiedAtEveryFlushNeitherHoldsTheRingNorRepeatsItsPackets() {
        TraceBuffer buffer = new TraceBuffer(8 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        List<TracePacket> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            if (i % 5 == 0) {
                scrape(buffer, 0, framed("quiet"));
            }
            commit(buffer, 2, i, framed("busy-" + i));
            all.addAll(read(buffer, TRUSTED_IDENTITY, false));
        }
        commit(buffer, 0, framed("quiet", "later"));
        all.addAll(read(buffer, TRUSTED_IDENTITY, false));

        assertEquals(List.of("quiet", "later"), names(all).stream().filter(n -> !n.startsWith("busy-")).toList());
        assertEquals(40, names(all).stream().filter(n -> n.startsWith("busy-")).count());
        assertEquals(0, stats(buffer).getChunksOverwritten(), "chunks overwritten");
        assertNothingLost(buffer, all);
        assertEquals(41, stats(buffer).getChunksWritten(), "each chunk counted once: " + stats(buffer));
        assertEquals(41, stats(buffer).getChunksRead(), "each chunk counted once: " + stats(buffer));
        assertEquals(8, stats(buffer).getChunksRewritten(), "the quiet chunk's later copies: " + stats(buffer));
        assertEquals(stats(buffer).getBytesWritten(), stats(buffer).getBytesRead(), "every copy written was read");
    }

    /** A chunk the buffer could not take is known lost: the held chunk after it is read, and the sequence goes on. */
    @Test
    void aHeldChunkAfterAKnownLossIsReadAndTheSequenceGoesOn() {
        TraceBuffer buffer = new TraceBuffer(4 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        commit(buffer, 0, framed("a"));
        List<TracePacket> first = read(buffer, TRUSTED_IDENTITY, false);
        ChunkPayload tooLarge = framed("lost");
        buffer.copyChunk(PRODUCER, WRITER, 1, tooLarge.packetsWord(), tooLarge.bytesPaddedTo(5 * CHUNK_BYTES), true);
        scrape(buffer, 2, framed("b"));
        List<TracePacket> held = read(buffer, TRUSTED_IDENTITY, false);
        commit(buffer, 2, framed("b", "c"));
        commit(buffer, 3, framed("d"));
        List<TracePacket> rest = read(buffer, TRUSTED_IDENTITY, false);

        assertEquals(List.of("a"), names(first));
        assertEquals(List.of("b"), names(held), "the held chunk after the lost one");
        assertTrue(held.get(0).getPreviousPacketDropped() != 0, "with the loss reported on it");
        assertEquals(List.of("c", "d"), names(rest), "the rest of the chunk and the next one, before the end");
        assertTrue(rest.stream().noneMatch(p -> p.getPreviousPacketDropped() != 0), "the loss is reported once");
    }

    /** Before a sequence's first chunk has arrived, a later chunk's copy waits: the first may still come. */
    @Test
    void aHeldChunkIsNotReadBeforeTheSequencesFirstChunk() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        scrape(buffer, 1, framed("b"));
        List<TracePacket> before = read(buffer, TRUSTED_IDENTITY, false);
        commit(buffer, 0, framed("a"));
        List<TracePacket> after = read(buffer, TRUSTED_IDENTITY, false);
        commit(buffer, 1, framed("b", "c"));
        List<TracePacket> rest = read(buffer, TRUSTED_IDENTITY, false);

        assertEquals(List.of(), names(before));
        assertEquals(List.of("a", "b"), names(after));
        assertEquals(List.of("c"), names(rest));
        assertNothingLost(buffer, after, rest);
    }

    @Test
    void anUntrustedProducersHeldChunkWaitsForItsCommit() {
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        scrape(buffer, 0, framed("a", "b"));
        List<TracePacket> running = read(buffer, IDENTITY, false);
        commit(buffer, 0, framed("a", "b", "c"));
        List<TracePacket> committed = read(buffer, IDENTITY, false);

        assertEquals(List.of(), names(running), "frames of another process are read once, whole");
        assertEquals(List.of("a", "b", "c"), names(committed));
    }
}
