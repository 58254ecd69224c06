package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.pkt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.TraceWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trusted writer's complete chunks read straight from the SMB into a file, never stored, when nothing
 * of their sequence waits in the buffer; every other chunk stored and read out as before, with the
 * sequence's packets in the file in the order written either way. Real writers, a real SMB, the commit
 * thread's own requests (their hints included), the file writer the service uses.
 */
class ReadThroughTest {
    private static final int PRODUCER = 1;

    @TempDir
    Path dir;

    @RegisterExtension
    final WriterRig rig = new WriterRig(512 * 1024, "read-through-commit");

    /** A committed chunk as the service gets it: its slot and its writer's hints. */
    private record Committed(int page, int index, int payloadEnd, int sequenceId) {
        PageLayout layout(SharedMemoryAbi abi) {
            return PageHeader.layout(abi.pageBitmap(page));
        }
    }

    /** Writes packets named {@code names} in order, flushes, and returns the chunks committed, taken for reading. */
    private List<Committed> written(TraceWriter w, List<String> names) throws InterruptedException {
        for (String name : names) {
            byte[] bytes = pkt(name).toByteArray();
            int at = w.tryReserve(bytes.length);
            if (at >= 0) {
                w.buffer().put(at, bytes);
                w.commitReserved(bytes.length);
            } else {
                // Too large for the fast path: the general one, which splits it across chunks.
                w.beginPacket().raw(bytes, 0, bytes.length);
                w.endPacket();
            }
        }
        w.flush();
        List<Committed> chunks = new ArrayList<>();
        long packets = 0;
        while (packets < names.size()) {
            CommitRequest r = rig.nextRequest();
            for (int i = 0; i < r.size(); i++) {
                assertTrue(rig.abi.tryAcquireChunkForReading(r.page(i), r.chunk(i)));
                Committed c = new Committed(r.page(i), r.chunk(i), r.payloadEnd(i), r.sequenceId(i));
                int header = rig.abi.readWriterAndPackets(rig.abi.chunkOffset(c.page, c.layout(rig.abi), c.index));
                int packetsWord = io.jtrace.shm.abi.ChunkHeader.packetsWordOf(header);
                // A packet split across chunks is counted once, in the chunk it ends in.
                packets += io.jtrace.shm.abi.ChunkHeader.packetCount(packetsWord)
                        - ((io.jtrace.shm.abi.ChunkHeader.flags(packetsWord)
                        & io.jtrace.shm.abi.ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT) != 0 ? 1 : 0);
                chunks.add(c);
            }
        }
        return chunks;
    }

    private boolean readThrough(TraceBuffer buffer, Committed c, SequenceIdentity identity, TraceFileWriter file) {
        return buffer.readThrough(PRODUCER, rig.abi, c.page, c.layout(rig.abi), c.index, c.payloadEnd, c.sequenceId, identity,
                file);
    }

    /** Read through if it may be, else stored, as the service's chunk mover does; returns whether it was read through. */
    private boolean move(TraceBuffer buffer, Committed c, SequenceIdentity identity, TraceFileWriter file) {
        boolean through = readThrough(buffer, c, identity, file);
        if (!through) {
            assertTrue(buffer.copyChunk(PRODUCER, rig.abi, c.page, c.layout(rig.abi), c.index, true, c.payloadEnd,
                    c.sequenceId) >= 0);
        }
        rig.abi.releaseChunkAsFree(c.page, c.index);
        return through;
    }

    /** {@link #move}s each chunk in order; returns which were read through. */
    private List<Boolean> moveAll(TraceBuffer buffer, List<Committed> chunks, SequenceIdentity identity,
                                  TraceFileWriter file) {
        List<Boolean> through = new ArrayList<>();
        for (Committed c : chunks) {
            through.add(move(buffer, c, identity, file));
        }
        return through;
    }

    /** A real writer, a buffer, and the service's identity for the writer's sequence (the writer's own id). */
    private record Run(TraceWriter writer, TraceBuffer buffer, SequenceIdentity identity) {}

    private Run run() {
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        return new Run(w, new TraceBuffer(1 << 20, TraceBuffer.Policy.RING), trustedWithTheWritersId(w));
    }

    /** Moves {@code chunks} into {@code file}, then reads the rest out as at the session's end; returns which went through. */
    private List<Boolean> moveAllThenEnd(Run r, List<Committed> chunks, Path file) throws IOException {
        try (TraceFileWriter out = new TraceFileWriter(file)) {
            List<Boolean> through = moveAll(r.buffer, chunks, r.identity, out);
            r.buffer.readAll(r.identity, out, true);
            return through;
        }
    }

    private static List<String> numbered(String prefix, int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add(prefix + i);
        }
        return names;
    }

    private List<TracePacket> fileOf(Path file) throws IOException {
        return Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
    }

    private static SequenceIdentity trustedWithTheWritersId(TraceWriter w) {
        return BufferTesting.trustedNaming((producerId, writerId) -> w.proposedSequenceId());
    }

    @Test
    void aTrustedWritersWholeChunksGoStraightIntoTheFileInOrderAndCountAsWrittenAndRead() throws Exception {
        Run r = run();
        TraceWriter w = r.writer;
        TraceBuffer buffer = r.buffer;
        List<String> names = numbered("p", 3000);
        List<Committed> chunks = written(w, names);
        Path file = dir.resolve("through.pftrace");

        assertTrue(moveAllThenEnd(r, chunks, file).stream().allMatch(t -> t), "every chunk read through");
        assertEquals(0, buffer.used(), "the ring holds nothing");

        List<TracePacket> packets = fileOf(file);
        assertEquals(names, names(packets));
        assertTrue(packets.stream().allMatch(p -> p.getTrustedPacketSequenceId() == w.proposedSequenceId()));
        assertTrue(packets.get(0).getFirstPacketOnSequence());
        assertTrue(packets.stream().noneMatch(TracePacket::hasPreviousPacketDropped));
        BufferCounters counters = buffer.counters();
        assertTrue(chunks.size() > 2, chunks.size() + " chunks");
        assertEquals(chunks.size(), counters.chunksReadThrough());
        assertEquals(chunks.size(), counters.chunksWritten());
        assertEquals(chunks.size(), counters.chunksRead());
        assertEquals(counters.bytesWritten(), counters.toProto(buffer.capacity()).getBytesRead());
    }

    @Test
    void aPacketSplitAcrossChunksGoesThroughTheRingAndTheChunksAfterItWaitTheirTurn() throws Exception {
        Run r = run();
        TraceWriter w = r.writer;
        TraceBuffer buffer = r.buffer;
        SequenceIdentity identity = r.identity;
        List<String> names = new ArrayList<>(numbered("a", 500));
        names.add("big-" + "x".repeat(9000));
        names.addAll(numbered("b", 500));
        List<Committed> chunks = written(w, names);
        Path file = dir.resolve("mixed.pftrace");
        List<Boolean> through;

        try (TraceFileWriter out = new TraceFileWriter(file)) {
            through = new ArrayList<>(moveAll(buffer, chunks, identity, out));
            buffer.readAll(identity, out, false);
            // Read out, the sequence waits for nothing: its next chunk goes straight through again.
            through.addAll(moveAll(buffer, written(w, numbered("c", 300)), identity, out));
            buffer.readAll(identity, out, true);
        }

        List<String> expected = new ArrayList<>(names);
        expected.addAll(numbered("c", 300));
        assertEquals(expected, names(fileOf(file)), "every packet once, in the order written");
        int firstStored = through.indexOf(false);
        assertTrue(firstStored > 0, "the chunks before the split packet went through: " + through);
        assertTrue(through.subList(firstStored, chunks.size()).stream().noneMatch(t -> t),
                "once a chunk of the sequence waits in the ring, the ones after it wait too: " + through);
        assertTrue(through.get(through.size() - 1), "after the read-out, chunks go through again: " + through);
        assertEquals(0, buffer.counters().chunksDiscarded());
    }

    @Test
    void chunksAfterASequencesFirstChunksWaitForThemWhileTheyWaitInTheRing() throws Exception {
        Run r = run();
        List<String> names = new ArrayList<>();
        names.add("big-" + "x".repeat(9000));
        names.addAll(numbered("a", 1000));
        Path file = dir.resolve("first-in-ring.pftrace");

        List<Boolean> through = moveAllThenEnd(r, written(r.writer, names), file);

        assertEquals(names, names(fileOf(file)), "every packet once, in the order written");
        assertTrue(through.stream().noneMatch(t -> t),
                "nothing of the sequence was read yet, its first chunks wait in the ring: " + through);
    }

    @Test
    void aChunkAheadOfTheNextOneExpectedIsRefusedUntilTheOnesBeforeItAreRead() throws Exception {
        Run r = run();
        List<String> names = numbered("p", 2000);
        List<Committed> chunks = written(r.writer, names);
        assertTrue(chunks.size() >= 3, chunks.size() + " chunks");
        Path file = dir.resolve("order.pftrace");

        try (TraceFileWriter out = new TraceFileWriter(file)) {
            assertTrue(readThrough(r.buffer, chunks.get(0), r.identity, out));
            assertFalse(readThrough(r.buffer, chunks.get(2), r.identity, out), "chunk 2 before chunk 1");
            assertTrue(readThrough(r.buffer, chunks.get(1), r.identity, out));
            assertTrue(readThrough(r.buffer, chunks.get(2), r.identity, out));
        }
        assertEquals(3, r.buffer.counters().chunksReadThrough());
        List<String> inFile = names(fileOf(file));
        assertTrue(!inFile.isEmpty() && inFile.equals(names.subList(0, inFile.size())),
                "the first three chunks' packets, once each, in the order written: " + inFile.size());
    }

    @Test
    void anUntrustedProducersChunkIsNeverReadThrough() throws Exception {
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        List<Committed> chunks = written(w, numbered("p", 1000));
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);

        try (TraceFileWriter out = new TraceFileWriter(dir.resolve("untrusted.pftrace"))) {
            assertFalse(readThrough(buffer, chunks.get(0), IDENTITY, out));
        }
        assertEquals(0, buffer.counters().chunksReadThrough());
        assertEquals(0, buffer.counters().chunksWritten());
    }
}
