package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TraceConfig;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.CommitRequest;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session that streams into a file keeps everything its producers committed, even when one commit
 * carries more than its whole buffer (the SMB is larger than a small trace buffer, and a producer that
 * was starved of CPU commits everything it wrote at once): the service writes the file before a chunk
 * would overwrite one not yet read.
 */
class FileSessionNeverOverwritesTest {
    private static final int WRITER = 1;
    private static final int PAGES = 100;
    private static final int BUFFER_KB = 64;

    @TempDir
    Path dir;

    @RegisterExtension
    final Closer closer = new Closer();

    @Test
    void oneCommitOfSixTimesTheBufferReachesTheFileWhole() throws Exception {
        TracingService service = closer.add(new TracingService(
                new ServiceConfig(2 * 1024 * 1024, 4096, dir, 4, 1L << 30, 5000)));
        HostileProducer producer = HostileProducer.connect(service, "raw", 1000, 1000, "raw");
        Path file = dir.resolve("burst.pftrace");
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        await(consumer.enableTracing(TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(BUFFER_KB))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("raw")))
                .setWriteIntoFile(true).setOutputPath(file.toString())
                .build()));
        int target = await(producer.started).getTargetBuffer();
        producer.endpoint.registerTraceWriter(WRITER, target);

        SharedMemoryAbi abi = new SharedMemoryAbi(producer.smb);
        CommitRequest burst = new CommitRequest(PAGES);
        long packets = 0;
        for (int page = 0; page < PAGES; page++) {
            packets = fillChunk(abi, page, packets);
            burst.add(page, 0, target);
        }
        producer.endpoint.commit(burst);
        await(consumer.disableTracing());

        List<TracePacket> trace = Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
        long next = 0;
        for (TracePacket p : trace) {
            if (p.hasTrackEvent() && p.getTrackEvent().getName().equals("raw")) {
                assertEquals(next++, p.getTimestamp(), "packets in the order written, none missing");
            }
        }
        assertEquals(packets, next, "every packet of the burst is in the file");
        TraceStats.BufferStats stats = ServiceTesting.traceStats(trace).getBufferStats(0);
        assertEquals(0, stats.getChunksOverwritten(), "chunks overwritten");
        assertTrue(stats.getBytesWritten() > 5L * BUFFER_KB * 1024, "the burst is several times the buffer: " + stats);
    }

    /** Fills page {@code page} as one COMPLETE chunk (id = page) of packets numbered from {@code first}; returns the next number. */
    private static long fillChunk(SharedMemoryAbi abi, int page, long first) {
        ByteBuffer smb = abi.smb().buffer();
        smb.putInt(abi.pageOffset(page), PageHeader.withChunkState(PageHeader.withLayout(PageLayout.DIV1), 0,
                ChunkState.COMPLETE));
        int base = abi.chunkOffset(page, PageLayout.DIV1, 0);
        int end = base + PageLayout.DIV1.chunkSize(abi.pageSize());
        int pos = base + ChunkHeader.SIZE;
        int count = 0;
        long n = first;
        while (true) {
            byte[] packet = TracePacket.newBuilder().setTimestamp(n)
                    .setTrackEvent(TrackEvent.newBuilder().setName("raw").addCategories("x".repeat(60)))
                    .build().toByteArray();
            if (pos + 4 + packet.length > end) {
                break;
            }
            smb.putInt(pos, WireFormat.redundantVarint(packet.length));
            smb.put(pos + 4, packet);
            pos += 4 + packet.length;
            count++;
            n++;
        }
        smb.putInt(base, page);
        smb.putInt(base + 4, ChunkHeader.writerAndPackets(WRITER, ChunkHeader.packetsWord(count, 0)));
        return n;
    }
}
