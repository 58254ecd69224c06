package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static io.jtrace.service.ServiceTesting.config;
import static io.jtrace.service.ServiceTesting.producerPackets;
import static io.jtrace.service.ServiceTesting.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.CommitRequest;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scrape at the end of a session must never pair a chunk's previous header with the bytes its next
 * writer is writing. The producer here follows the ABI by hand, so the test can stop a writer in the
 * window between taking a freed chunk (CAS FREE → BEING_WRITTEN) and writing its header.
 */
class ScrapeAfterReuseTest {
    private static final int WRITER = 1;
    private static final int CHUNK_ID = 0;
    private static final PageLayout LAYOUT = PageLayout.DIV4;

    @TempDir
    Path smbDir;

    @RegisterExtension
    final Closer closer = new Closer();

    @Test
    void aChunkTakenByANewWriterIsNotScrapedUnderItsPreviousHeader() throws Exception {
        TracingService service = closer.add(new TracingService(new ServiceConfig(64 * 1024,
                SharedMemoryBuffer.DEFAULT_PAGE_SIZE, smbDir, 4, 1L << 30, 5000)));
        HostileProducer producer = HostileProducer.connect(service, "by-hand", 1, 1, "test");
        ConsumerEndpoint consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());
        await(consumer.enableTracing(config(1024, "test")));
        int target = await(producer.started).getTargetBuffer();
        producer.endpoint.registerTraceWriter(WRITER, target);
        SharedMemoryAbi abi = new SharedMemoryAbi(producer.smb);

        // Writer 1 fills a chunk with 2 packets and commits it; the flush returns once the service has
        // moved it (copied into the buffer, header cleared, freed).
        int chunk = acquire(abi);
        int offset = abi.chunkOffset(0, LAYOUT, chunk);
        abi.writeChunkHeader(offset, CHUNK_ID, WRITER, ChunkHeader.packetsWord(0, 0));
        writePackets(abi, offset, 1);
        abi.publishPackets(offset, ChunkHeader.writerAndPackets(WRITER, ChunkHeader.packetsWord(2, 0)));
        abi.releaseChunkAsComplete(0, chunk);
        CommitRequest request = new CommitRequest(1);
        request.add(0, chunk, target);
        producer.endpoint.commit(request);
        assertTrue(await(consumer.flush(5000)));

        // The next writer takes the same chunk and writes its packets, but not its header yet.
        assertEquals(chunk, acquire(abi), "the freed chunk is the one taken again");
        writePackets(abi, offset, 2);

        await(consumer.disableTracing());
        List<TracePacket> packets = read(consumer);

        List<Long> tags = producerPackets(packets).stream().map(p -> p.getTrackEvent().getTrackUuid())
                .collect(Collectors.toList());
        assertEquals(List.of(1L, 1L), tags, "writer 1's packets, not the next writer's bytes under its header");
        TraceStats.BufferStats stats = ServiceTesting.traceStats(packets).getBufferStats(0);
        assertEquals(0, stats.getChunksRewritten(), "the committed copy was not overwritten by a scrape");
    }

    private static int acquire(SharedMemoryAbi abi) {
        abi.tryPartitionPage(0, LAYOUT);
        int chunk = abi.tryAcquireChunkForWriting(0, LAYOUT);
        assertTrue(chunk >= 0);
        return chunk;
    }

    /** Two framed packets tagged {@code tag} at the start of the chunk's payload. */
    private static void writePackets(SharedMemoryAbi abi, int chunkOffset, long tag) {
        ByteBuffer smb = abi.smb().buffer();
        int pos = chunkOffset + ChunkHeader.SIZE;
        for (int i = 0; i < 2; i++) {
            byte[] packet = TestPackets.expected(tag, i).toByteArray();
            smb.putInt(pos, WireFormat.redundantVarint(packet.length));
            smb.put(pos + WireFormat.RESERVED_SIZE_BYTES, packet);
            pos += WireFormat.RESERVED_SIZE_BYTES + packet.length;
        }
    }
}
