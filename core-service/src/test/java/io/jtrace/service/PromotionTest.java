package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.assertTagged;
import static io.jtrace.service.ServiceTesting.await;
import static io.jtrace.service.ServiceTesting.config;
import static io.jtrace.service.ServiceTesting.producerPackets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.producer.DataSourceContext;
import io.jtrace.producer.ProducerClient;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.buffer.BufferCounters;
import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.stream.Collectors;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-process writers of a session that streams into a file append their complete chunks to the file
 * themselves ({@link io.jtrace.service.buffer.Promotion}): from their chunk 0, or, once the service has
 * read a chunk of theirs straight into the file, from the chunk after it. Whichever way each chunk goes,
 * the file holds every packet once, each writer's in its order, and the buffer's counts add up.
 */
class PromotionTest {
    private static final long TAG = 7;

    @TempDir
    Path dir;

    @RegisterExtension
    final Closer closer = new Closer();

    /** 4 KiB pages: the packet counts below are chosen to fill, or not, chunks of that size. */
    private static final int PAGE_SIZE = 4096;

    /** A session streaming into a file, whose one data source hands its context to the test thread. */
    private final class Streamed {
        final TracingService service;
        final CompletableFuture<DataSourceContext> context = new CompletableFuture<>();
        final ConsumerEndpoint consumer;
        final Path file = dir.resolve("streamed.pftrace");

        Streamed() throws Exception {
            this(SharedMemoryBuffer.DEFAULT_SIZE);
        }

        Streamed(int smbSize) throws Exception {
            service = closer.add(new TracingService(new ServiceConfig(smbSize, PAGE_SIZE, dir, 16,
                    1024L * 1024 * 1024, 10_000)));
            TestDataSource source = new TestDataSource("test", (ctx, cfg) -> TestDataSource.onStart(() -> context.complete(ctx)));
            ProducerClient client = new ProducerClient("in-process", List.of(source));
            client.connect(p -> service.connectInProcessProducer(p, "in-process"));
            closer.add(client);
            consumer = service.connectConsumer(new ServiceTesting.RecordingConsumer());
            await(consumer.enableTracing(config(4096, "test").toBuilder().setWriteIntoFile(true)
                    .setOutputPath(file.toString()).build()));
        }

        /** A new writer, for the test thread to write with. */
        TraceWriter writer() throws Exception {
            return await(context).newTraceWriter();
        }

        int bufferId() throws Exception {
            return await(service.status()).sessions().get(0).buffers().get(0).id();
        }

        List<TracePacket> fileNow() throws Exception {
            return producerPackets(Trace.parseFrom(Files.readAllBytes(file)).getPacketList());
        }

        /**
         * Waits until the service has received more than {@code committed} chunks and read every one it
         * received: what it grants after reading a chunk is granted by then.
         */
        void awaitEveryChunkReadAfter(long committed) throws Exception {
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            BufferCounters counters = await(service.bufferCounters(bufferId()));
            while (counters.chunksWritten() <= committed || counters.chunksRead() < counters.chunksWritten()) {
                assertTrue(System.nanoTime() < deadline, "the service read no chunk committed after the flush: " + counters);
                Thread.sleep(1);
                counters = await(service.bufferCounters(bufferId()));
            }
        }

        /** Stops the session; its buffer's counts then, every chunk settled. */
        BufferCounters stop() throws Exception {
            int bufferId = bufferId();
            await(consumer.disableTracing());
            return await(service.bufferCounters(bufferId));
        }
    }

    /**
     * The file holds the {@code count} packets tagged {@link #TAG} once each, in order, on one sequence
     * opened once, nothing lost, and the buffer counts every chunk written as read, some appended by the
     * writer itself. Returns the file's packets.
     */
    private static List<TracePacket> assertOneWriterWholeInOrder(Streamed session, BufferCounters counters, int count)
            throws Exception {
        List<TracePacket> packets = session.fileNow();
        assertTagged(packets, TAG, count);
        assertTrue(counters.chunksPromoted() > 0, "chunks appended by the writer: " + counters.chunksPromoted() + " of "
                + counters.chunksWritten() + ", " + counters.chunksReadThrough() + " read through");
        assertEquals(counters.chunksWritten(), counters.chunksRead(), "every chunk written was read");
        assertTrue(packets.stream().noneMatch(TracePacket::hasPreviousPacketDropped), "nothing lost");
        assertEquals(1, packets.stream().filter(TracePacket::getFirstPacketOnSequence).count(), "one sequence, opened once");
        return packets;
    }

    /**
     * A writer whose first packet spans chunks cannot open its sequence in the file: its first chunks go
     * through the service. Once the service has read one of its chunks straight into the file (here at a
     * flush, with nothing of the sequence left in its buffer), the writer appends the chunks after it.
     */
    @Test
    void aWriterWhoseFirstChunksWentThroughTheServiceAppendsItsLaterChunksOnceTheServiceHasThem() throws Exception {
        Streamed session = new Streamed();
        TraceWriter writer = session.writer();
        TestPackets.writePadded(writer, TAG + 1, 0, 3000); // larger than a chunk: a fragment in chunk 0
        int count = 3000;
        for (int i = 0; i < count / 2; i++) {
            TestPackets.write(writer, TAG, i);
        }
        // The flush reads the first chunks out of the buffer; the next chunk goes straight into the file,
        // and, as the wait makes sure, before the writer releases the one after it. (Not a second flush:
        // a flush takes back the promotion of a writer that is not appending at that moment.)
        assertTrue(await(session.consumer.flush(10_000)));
        long committedAtTheFlush = await(session.service.bufferCounters(session.bufferId())).chunksWritten();
        int next = count / 2 + 300;
        for (int i = count / 2; i < next; i++) {
            TestPackets.write(writer, TAG, i);
        }
        session.awaitEveryChunkReadAfter(committedAtTheFlush);
        for (int i = next; i < count; i++) {
            TestPackets.write(writer, TAG, i);
        }
        writer.close();
        BufferCounters counters = session.stop();

        List<TracePacket> packets = assertOneWriterWholeInOrder(session, counters, count);
        assertEquals(1, ServiceTesting.withTag(packets, TAG + 1).size(), "the packet that spans chunks, once");
        assertTrue(counters.chunksPromoted() < counters.chunksWritten(), "its first chunks went through the service");
    }

    /**
     * A writer that appends its own chunks and then goes quiet still has its last events in the file
     * after the first flush: the flush takes its promotion back (it is not appending at that moment),
     * though it appended chunks since the session began, and copies the chunk it holds. Its later chunks
     * go through the service, and the file holds every packet once, in order.
     */
    @Test
    void aQuietWriterThatAppendsItsOwnChunksHasItsLastEventsInTheFileAfterAFlush() throws Exception {
        Streamed session = new Streamed();
        TraceWriter writer = session.writer();
        int first = 2000;
        for (int i = 0; i < first; i++) {
            TestPackets.write(writer, TAG, i);
        }
        assertTrue(await(session.consumer.flush(10_000)));
        assertTagged(session.fileNow(), TAG, first);

        int count = 4000;
        for (int i = first; i < count; i++) {
            TestPackets.write(writer, TAG, i);
        }
        writer.close();
        assertOneWriterWholeInOrder(session, session.stop(), count);
    }

    /**
     * A writer that closes retires its sequence with the chunks it appended counted; a new writer, which
     * may get the same writer id, opens a new sequence of its own in the file.
     */
    @Test
    void writersThatComeAndGoEachOpenTheirOwnSequenceInTheFileWithEveryChunkCounted() throws Exception {
        Streamed session = new Streamed();
        int writers = 5;
        int count = 1500;
        for (int w = 0; w < writers; w++) {
            TraceWriter writer = session.writer();
            for (int i = 0; i < count; i++) {
                TestPackets.write(writer, TAG + w, i);
            }
            writer.close();
        }
        BufferCounters counters = session.stop();

        List<TracePacket> packets = session.fileNow();
        for (int w = 0; w < writers; w++) {
            assertTagged(packets, TAG + w, count);
            assertEquals(1, ServiceTesting.withTag(packets, TAG + w).stream()
                    .map(TracePacket::getTrustedPacketSequenceId).distinct().count(), "writer " + w + ": one sequence");
        }
        assertEquals(writers, packets.stream().map(TracePacket::getTrustedPacketSequenceId).distinct().count(),
                "each writer its own sequence");
        assertEquals(writers, packets.stream().filter(TracePacket::getFirstPacketOnSequence).count());
        assertTrue(counters.chunksPromoted() > 0, "chunks appended by the writers: " + counters.chunksPromoted());
        assertEquals(counters.chunksWritten(), counters.chunksRead(), "every chunk written was read");
    }

    /**
     * A flush copies part of the chunk a writer still holds (its chunk 0) into the file; when the writer
     * then releases that chunk, it must not open its sequence in the file with it: the file would hold
     * the copied packets twice.
     */
    @Test
    void aWriterWhoseHeldChunkAFlushCopiedDoesNotAppendThatChunkAgain() throws Exception {
        Streamed session = new Streamed();
        TraceWriter writer = session.writer();
        for (int i = 0; i < 10; i++) {
            TestPackets.write(writer, TAG, i);
        }
        assertTrue(await(session.consumer.flush(10_000)));
        assertTagged(session.fileNow(), TAG, 10);
        int count = 3000;
        for (int i = 10; i < count; i++) {
            TestPackets.write(writer, TAG, i);
        }
        writer.close();
        await(session.consumer.disableTracing());

        List<TracePacket> packets = session.fileNow();
        assertTagged(packets, TAG, count);
        assertEquals(1, packets.stream().filter(TracePacket::getFirstPacketOnSequence).count(), "one sequence, opened once");
    }

    /**
     * While a session runs, its status counts the chunks writers appended to the file themselves, though
     * no settlement has counted them yet: a flood's status does not show a buffer that writes nothing.
     */
    @Test
    void aRunningSessionsStatusCountsTheChunksItsWritersAppended() throws Exception {
        Streamed session = new Streamed();
        TraceWriter writer = session.writer();
        for (int i = 0; i < 3000; i++) {
            TestPackets.write(writer, TAG, i);
        }
        io.jtrace.protos.TraceStats.BufferStats live =
                await(session.service.status()).sessions().get(0).buffers().get(0).stats();
        writer.close();
        BufferCounters atEnd = session.stop();

        assertTrue(live.getChunksWritten() > 0, "chunks counted while running: " + live.getChunksWritten());
        assertEquals(live.getChunksWritten(), live.getChunksRead(), "each appended chunk is written and read");
        assertTrue(live.getBytesWritten() >= live.getChunksWritten() * 1000, "bytes: " + live.getBytesWritten());
        assertTrue(atEnd.chunksWritten() >= live.getChunksWritten(), "the final count includes them once: "
                + atEnd.chunksWritten() + " at the end, " + live.getChunksWritten() + " while running");
        assertTrue(atEnd.chunksWritten() <= live.getChunksWritten() + 2, "and counts none of them twice: "
                + atEnd.chunksWritten() + " at the end, " + live.getChunksWritten() + " while running");
    }

    /**
     * Writes packets 0 to {@code before - 1}, then fills the SMB with writers that hold a chunk each
     * until one finds none, loses packet {@code before} to the full SMB and frees one chunk again.
     * Returns the writers still holding theirs.
     */
    private static List<TraceWriter> loseOnePacketToAFullSmb(Streamed session, TraceWriter writer, int before)
            throws Exception {
        for (int i = 0; i < before; i++) {
            TestPackets.write(writer, TAG, i);
        }
        writer.flush();
        List<TraceWriter> holders = new ArrayList<>();
        do {
            TraceWriter holder = session.writer();
            TestPackets.write(holder, TAG + 1, holders.size());
            holders.add(holder);
        } while (holders.get(holders.size() - 1).droppedPackets() == 0);
        TestPackets.write(writer, TAG, before);
        assertEquals(1, writer.droppedPackets(), "the SMB was full");
        holders.remove(0).close(); // its chunk is appended and freed
        return holders;
    }

    /** A packet that clears the sequence's incremental state, as a track event writer's restart after a loss. */
    private static void writeRestart(TraceWriter writer) {
        ProtoWriter p = writer.beginPacket();
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SequenceHeader.SEQ_INCREMENTAL_STATE_CLEARED);
        writer.endPacket();
    }

    /**
     * A writer that appends its own chunks and loses packets to a full SMB goes on appending them when it
     * restarts its sequence after the loss: its next chunk leads with a drop marker, which it leaves out
     * of the file, flagging the restart with previous_packet_dropped and counting the loss in the
     * buffer's statistics, as the service would. No chunk goes through the service for it.
     */
    @Test
    void aWriterThatLostPacketsToAFullSmbAndRestartsKeepsAppendingItsChunksWithTheLossFlaggedAndCounted()
            throws Exception {
        Streamed session = new Streamed(8 * PAGE_SIZE);
        TraceWriter writer = session.writer();
        int before = 300;
        List<TraceWriter> holders = loseOnePacketToAFullSmb(session, writer, before);
        writeRestart(writer);
        int count = 600;
        for (int i = before + 1; i < count; i++) {
            TestPackets.write(writer, TAG, i);
        }
        writer.close();
        for (TraceWriter holder : holders) {
            holder.close();
        }
        BufferCounters counters = session.stop();

        List<TracePacket> packets = session.fileNow();
        assertAllButTheLostOneInOrder(packets, before, count);
        List<TracePacket> flagged = packets.stream().filter(TracePacket::hasPreviousPacketDropped).collect(Collectors.toList());
        assertEquals(1, flagged.size(), "one packet after a loss: " + flagged);
        assertEquals(SequenceHeader.SEQ_INCREMENTAL_STATE_CLEARED, flagged.get(0).getSequenceFlags(), "the restart");
        // The writer's drop and the last holder's (whose marker-only chunk went out at its close).
        assertEquals(2, counters.writerPacketLoss(), "the writers' losses, counted");
        assertEquals(counters.chunksWritten(), counters.chunksPromoted(), "every chunk appended by its writer");
        assertEquals(counters.chunksWritten(), counters.chunksRead(), "every chunk written was read");
    }

    /**
     * A writer that does not restart its sequence after a loss (its next packet does not clear the
     * incremental state) has that chunk go through the service, which decides which of its packets can
     * be decoded: here all, as none needs the state, the first after the loss flagged
     * previous_packet_dropped. Through the service, whose reads free its chunks later, the writer may
     * lose more to the full SMB: every packet is in the file or counted by the writer.
     */
    @Test
    void aWriterThatLostPacketsToAFullSmbWithoutARestartHasTheChunkAfterTheLossGoThroughTheService() throws Exception {
        Streamed session = new Streamed(8 * PAGE_SIZE);
        TraceWriter writer = session.writer();
        int before = 300;
        List<TraceWriter> holders = loseOnePacketToAFullSmb(session, writer, before);
        int count = 600;
        for (int i = before + 1; i < count; i++) {
            TestPackets.write(writer, TAG, i);
        }
        long dropped = writer.droppedPackets();
        writer.close();
        for (TraceWriter holder : holders) {
            holder.close();
        }
        BufferCounters counters = session.stop();

        List<TracePacket> mine = ServiceTesting.withTag(session.fileNow(), TAG);
        assertEquals(count, mine.size() + dropped, "every packet in the file or counted as dropped");
        long last = -1;
        for (TracePacket p : mine) {
            assertTrue(p.getTimestamp() > last, "in order: " + p.getTimestamp() + " after " + last);
            assertEquals(TestPackets.expected(TAG, p.getTimestamp()), TestPackets.withoutServiceFields(p));
            last = p.getTimestamp();
        }
        TracePacket afterTheLoss = mine.get(before);
        assertTrue(afterTheLoss.getTimestamp() > before && afterTheLoss.hasPreviousPacketDropped(),
                "the packet after the loss, flagged by the service: " + afterTheLoss);
        assertTrue(counters.writerPacketLoss() >= 2, "the writers' losses, counted: " + counters.writerPacketLoss());
        assertTrue(counters.chunksPromoted() < counters.chunksWritten(), "the chunk after the loss went through the service");
        assertEquals(counters.chunksWritten(), counters.chunksRead(), "every chunk written was read");
    }

    /** The writer's packets tagged {@link #TAG} in the file: all of 0..count-1 but {@code lost}, in order. */
    private static void assertAllButTheLostOneInOrder(List<TracePacket> packets, int lost, int count) {
        List<TracePacket> mine = ServiceTesting.withTag(packets, TAG);
        assertEquals(count - 1, mine.size(), "every packet but the dropped one");
        for (int i = 0; i < mine.size(); i++) {
            int index = i < lost ? i : i + 1;
            assertEquals(TestPackets.expected(TAG, index), TestPackets.withoutServiceFields(mine.get(i)), "packet " + index);
        }
    }
}
