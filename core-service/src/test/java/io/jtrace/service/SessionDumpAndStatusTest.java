package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.status.DumpResult;
import io.jtrace.service.status.ServiceStatus;
import io.jtrace.service.status.SessionStatus;
import io.jtrace.shm.writer.TraceWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@link TracingService#dump} (a running session's trace written while it goes on) and {@link TracingService#status}. */
class SessionDumpAndStatusTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final Closer closer = new Closer();

    private final TracingService service = closer.add(new TracingService(
            new ServiceConfig(64 * 1024, 4096, null, 8, 1L << 30, 5000)));
    private SourceProducer producer;

    private void connectProducer() {
        producer = closer.add(new SourceProducer(service));
    }

    private static List<TracePacket> fileTrace(Path file) throws Exception {
        return Trace.parseFrom(Files.readAllBytes(file)).getPacketList();
    }

    @Test
    void aDumpIsAWholeTraceOfWhatWasTracedAndTheSessionStillKeepsAllOfIt() throws Exception {
        connectProducer();
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        long id = await(consumer.enableTracing(ServiceTesting.config(1024, "src")));
        TraceWriter writer = await(producer.context).newTraceWriter();
        for (int i = 0; i < 300; i++) {
            TestPackets.write(writer, 7, i);
        }
        // No flush by the test: the dump copies the chunk the writer still holds.
        DumpResult first = await(service.dump(id, dir.resolve("first.pftrace")));
        for (int i = 300; i < 500; i++) {
            TestPackets.write(writer, 7, i);
        }
        DumpResult second = await(service.dump(id, dir.resolve("second.pftrace")));

        List<TracePacket> firstPackets = fileTrace(first.file());
        ServiceTesting.assertTagged(firstPackets, 7, 300);
        assertTrue(firstPackets.get(0).hasClockSnapshot() && firstPackets.get(1).hasTraceConfig(),
                "a dump starts like any trace");
        assertTrue(firstPackets.get(firstPackets.size() - 1).hasTraceStats(), "and ends with the stats");
        assertEquals(Files.size(first.file()), first.bytes());
        assertEquals(firstPackets.size(), first.packets());
        ServiceTesting.assertTagged(fileTrace(second.file()), 7, 500);

        writer.close();
        await(consumer.disableTracing());
        ServiceTesting.assertTagged(ServiceTesting.read(consumer), 7, 500);
    }

    @Test
    void aSessionThatStreamsIntoItsOwnFileIsNotDumped() throws Exception {
        connectProducer();
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        long id = await(consumer.enableTracing(ServiceTesting.config(1024, "src").toBuilder()
                .setWriteIntoFile(true).setOutputPath(dir.resolve("own.pftrace").toString()).build()));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(service.dump(id, dir.resolve("dump.pftrace"))));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("own.pftrace"), e.getCause().getMessage());
    }

    @Test
    void aDumpIntoADirectoryThatCannotBeMadeSaysWhy() throws Exception {
        connectProducer();
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        long id = await(consumer.enableTracing(ServiceTesting.config(256, "src")));
        Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
        Path under = file.resolve("dump.pftrace");
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(service.dump(id, under)));
        assertEquals("cannot write the dump to '" + under + "': not a directory: " + file,
                e.getCause().getMessage());
    }

    @Test
    void anUnknownSessionIsNamedInTheError() {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> await(service.dump(42, dir.resolve("dump.pftrace"))));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("42"));
    }

    @Test
    void statusShowsSessionsWithTheirBuffersDataSourcesAndTheProducers() throws Exception {
        connectProducer();
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        long id = await(consumer.enableTracing(ServiceTesting.config(256, "src").toBuilder()
                .setUniqueSessionName("mine").build()));
        TraceWriter writer = await(producer.context).newTraceWriter();
        long packetBytes = 0;
        for (int i = 0; i < 100; i++) {
            TestPackets.write(writer, 7, i);
            packetBytes += TestPackets.expected(7, i).getSerializedSize();
        }
        // Hands the chunk it holds over: a ring session's flush takes what its producer commits.
        writer.flush();
        await(consumer.flush(5000));

        ServiceStatus status = await(service.status());
        SessionStatus session = status.session(id);
        assertEquals("mine", session.uniqueName());
        assertEquals("STARTED", session.state());
        assertEquals(List.of("src@p"), session.dataSources());
        assertEquals(1, session.buffers().size());
        assertEquals(256 * 1024, session.buffers().get(0).capacity());
        assertEquals("RING", session.buffers().get(0).fillPolicy());
        long used = session.buffers().get(0).used();
        assertTrue(used >= packetBytes, "the flushed packets are in the buffer: " + used + " bytes for " + packetBytes);
        assertTrue(session.buffers().get(0).stats().getBytesWritten() >= packetBytes);
        assertEquals(1, session.flushesSucceeded());
        assertEquals(1, status.producers().size());
        assertEquals(List.of("src"), status.producers().get(0).dataSources());
        writer.close();
    }
}
