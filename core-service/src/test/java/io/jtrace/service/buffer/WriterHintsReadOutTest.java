package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.IDENTITY;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.pkt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.proto.WireFormat;
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
 * A trusted writer's read-out hints (the sequence id it wrote into its slots, where its chunk's whole
 * packets end): when the service's id for the sequence is the writer's, a chunk's packets after the
 * first go to the file as they are, without a walk over their frames; when it is not, they are stamped
 * with the service's id as before. Real writers, a real SMB, the commit thread's own requests.
 */
class WriterHintsReadOutTest {
    private static final int PRODUCER = 1;

    @TempDir
    Path dir;

    @RegisterExtension
    final WriterRig rig = new WriterRig(256 * 1024, "hints-commit");

    /** Writes {@code count} packets (a few chunks' worth), flushes, and moves the chunks as the service does. */
    private TraceBuffer written(TraceWriter w, int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            byte[] bytes = pkt("p" + i).toByteArray();
            int at = w.tryReserve(bytes.length);
            w.buffer().put(at, bytes);
            w.commitReserved(bytes.length);
        }
        w.flush();
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        int chunks = 0;
        long packets = 0;
        while (packets < count) {
            CommitRequest r = rig.nextRequest();
            for (int i = 0; i < r.size(); i++) {
                int page = r.page(i);
                assertTrue(rig.abi.tryAcquireChunkForReading(page, r.chunk(i)));
                int header = rig.abi.readWriterAndPackets(rig.abi.chunkOffset(page, PageHeader.layout(rig.abi.pageBitmap(page)), r.chunk(i)));
                packets += io.jtrace.shm.abi.ChunkHeader.packetCount(io.jtrace.shm.abi.ChunkHeader.packetsWordOf(header));
                assertTrue(buffer.copyChunk(PRODUCER, rig.abi, page, PageHeader.layout(rig.abi.pageBitmap(page)), r.chunk(i),
                        true, r.payloadEnd(i), r.sequenceId(i)) >= 0);
                rig.abi.releaseChunkAsFree(page, r.chunk(i));
                chunks++;
            }
        }
        assertTrue(chunks > 2, chunks + " chunks");
        return buffer;
    }

    private static SequenceIdentity trustedWithSequenceId(int sequenceId) {
        return BufferTesting.trustedNaming((producerId, writerId) -> sequenceId);
    }

    private List<TracePacket> readIntoFile(TraceBuffer buffer, SequenceIdentity identity) throws IOException {
        Path file = Files.createTempFile(dir, "read", ".pftrace");
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            buffer.readAll(identity, writer, true);
        }
        return Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
    }

    private static List<String> expectedNames(int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add("p" + i);
        }
        return names;
    }

    @Test
    void whenTheSequenceHasTheWritersOwnIdItsChunksGoAsTheyAreAndTheFileNamesThatSequence() throws Exception {
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        int id = w.proposedSequenceId();
        assertTrue(id > 0 && id <= WireFormat.MAX_SLOT_SEQUENCE_ID);
        TraceBuffer buffer = written(w, 3000);

        List<TracePacket> packets = readIntoFile(buffer, trustedWithSequenceId(id));

        assertEquals(expectedNames(3000), names(packets));
        assertTrue(packets.stream().allMatch(p -> p.getTrustedPacketSequenceId() == id));
        assertEquals(buffer.counters().chunksRead(), buffer.counters().chunksReadOnHints(), "every chunk went as it was");
    }

    @Test
    void whenTheServiceGaveTheSequenceAnotherIdEveryPacketIsStampedWithThatOne() throws Exception {
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TraceBuffer buffer = written(w, 3000);
        int serviceId = 77;

        List<TracePacket> packets = readIntoFile(buffer, trustedWithSequenceId(serviceId));

        assertEquals(expectedNames(3000), names(packets));
        assertTrue(packets.stream().allMatch(p -> p.getTrustedPacketSequenceId() == serviceId),
                "not the writer's own " + w.proposedSequenceId());
        assertEquals(0, buffer.counters().chunksReadOnHints());
    }

    @Test
    void anUntrustedProducersHintsAreNotUsedItsPacketsAreEachValidated() throws Exception {
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TraceBuffer buffer = written(w, 3000);
        List<Integer> runs = new ArrayList<>();
        int[] single = {0};

        buffer.readAll(IDENTITY, new PacketSink() {
            @Override
            public void packet(byte[] body, int bodyOffset, int bodyLength, byte[] trailer, int trailerLength) {
                single[0]++;
            }

            @Override
            public void framedPackets(byte[] data, int offset, int length, int count) {
                runs.add(count);
            }
        }, true);

        assertEquals(3000, single[0]);
        assertEquals(List.of(), runs);
    }
}
