package io.jtrace.service;

import static io.jtrace.service.ServiceTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.CodedInputStream;
import io.jtrace.protos.TracePacket;
import io.jtrace.service.status.ServiceStatus;
import io.jtrace.service.status.SessionStatus;
import io.jtrace.shm.writer.TraceWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sessions streaming into a pipe (a FIFO, as {@code file=} may name one). One whose reader goes away part
 * of the way through: the session stops with the write's error; its status reports the bytes the pipe
 * took (at least what the reader got, at most a pipe's buffer more, while the producer offered far
 * more); what the reader got is the trace's first packets whole; and the service goes on serving.
 * ({@code FileWritesTest} proves the count on a simulated pipe; this runs the service end to end into a
 * real one.) One nobody reads fails to start.
 */
class PipeReaderLeavesTest {
    /** What the reader reads before it closes: several of the file's writes, far less than the producer writes. */
    private static final int READ_BYTES = 300_000;
    /**
     * Linux's default pipe buffer, 16 pages: what the pipe may still have held, unread, when its reader
     * closed it. Every byte a write put into the pipe counts as taken; the reader got all of them but these.
     */
    private static final long PIPE_BUFFER = 16 * pageSize();

    @TempDir
    Path dir;

    @RegisterExtension
    final Closer closer = new Closer();

    private final TracingService service = closer.add(new TracingService(
            new ServiceConfig(1024 * 1024, 4096, null, 8, 1L << 30, 5000)));
    private SourceProducer producer;

    @Test
    void aPipeWhoseReaderLeavesStopsItsSessionWhoseStatusCountsWhatThePipeTook() throws Exception {
        Path fifo = fifo("trace.fifo");
        // Opened before the session starts: the service's open of a FIFO waits for a reader.
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return in.readNBytes(READ_BYTES);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        producer = closer.add(new SourceProducer(service));
        CompletableFuture<String> disabled = new CompletableFuture<>();
        ConsumerEndpoint consumer = service.connectConsumer(disabled::complete);
        long id = await(consumer.enableTracing(ServiceTesting.config(256, "src").toBuilder()
                .setWriteIntoFile(true).setOutputPath(fifo.toString()).build()));

        TraceWriter writer = await(producer.context).newTraceWriter();
        long written = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ServiceTesting.WAIT_SECONDS);
        // Writes on until the session stops: the pipe fills once its reader has its bytes, and the write
        // after the reader closed it fails.
        while (!disabled.isDone() && System.nanoTime() < deadline) {
            TestPackets.writePadded(writer, 7, written++, 200);
            if (written % 100 == 0) {
                writer.flush();
                Thread.sleep(1);
            }
        }
        String error = disabled.get(ServiceTesting.WAIT_SECONDS, TimeUnit.SECONDS);
        byte[] got = read.get(ServiceTesting.WAIT_SECONDS, TimeUnit.SECONDS);
        writer.close();

        assertNotNull(error, "the session stopped because the pipe failed, and says so");
        assertTrue(error.contains(fifo.toString()), error);
        assertEquals(READ_BYTES, got.length, "the reader got what it asked for before it left");
        SessionStatus session = await(service.status()).session(id);
        assertNotNull(session, "the stopped session is still listed");
        long taken = session.fileBytes();
        assertTrue(taken >= got.length && taken <= got.length + PIPE_BUFFER,
                "the status counts the bytes the pipe took (" + taken + "), of which the reader got " + got.length
                        + " and the pipe held at most " + PIPE_BUFFER + " more; the producer wrote " + written + " packets");
        assertTrue(written * 200 > READ_BYTES + PIPE_BUFFER,
                "the producer offered more than the reader and the pipe could take: " + written + " packets");

        long whole = wholePacketsAtTheStart(got);
        assertTrue(whole > READ_BYTES / 400, "the reader got the trace's first packets whole: " + whole);

        ServiceStatus after = await(service.status());
        assertEquals(1, after.producers().size(), "the service still serves its producer");
    }

    /**
     * A pipe nobody has open for reading: the open for writing would wait for a reader for as long as it
     * takes, holding the service's thread. The start fails at once instead, and says what is missing.
     */
    @Test
    void aSessionIntoAPipeNobodyReadsFailsToStartAndSaysWhy() throws Exception {
        Path fifo = fifo("nobody.fifo");
        ConsumerEndpoint consumer = service.connectConsumer(error -> { });
        ExecutionException e = assertThrows(ExecutionException.class, () -> await(consumer.enableTracing(
                ServiceTesting.config(256, "src").toBuilder().setWriteIntoFile(true).setOutputPath(fifo.toString()).build())));
        assertInstanceOf(InvalidConfigException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("no process has the pipe " + fifo + " open for reading"),
                e.getCause().getMessage());
        assertEquals(List.of(), await(service.status()).sessions(), "no session is left behind");
    }

    /** The kernel's page size, as {@code getconf PAGESIZE} says; 4 KiB where it cannot tell. */
    private static long pageSize() {
        try {
            Process getconf = new ProcessBuilder("getconf", "PAGESIZE").start();
            String out = new String(getconf.getInputStream().readAllBytes()).trim();
            return getconf.waitFor() == 0 && out.matches("\\d+") ? Long.parseLong(out) : 4096;
        } catch (IOException e) {
            return 4096;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 4096;
        }
    }

    /** A FIFO in the test's folder (the test is skipped where mkfifo is missing). */
    private Path fifo(String name) throws IOException, InterruptedException {
        Path fifo = dir.resolve(name);
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mkfifo.waitFor() == 0, "mkfifo");
        return fifo;
    }

    /**
     * The packets at the start of {@code bytes} (a trace's first bytes, cut anywhere), each parsed: all
     * whole but a last one cut short, which is not counted.
     */
    private static long wholePacketsAtTheStart(byte[] bytes) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(bytes);
        long packets = 0;
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            assertEquals(1 << 3 | 2, tag, "a Trace holds only packets: tag at byte " + in.getTotalBytesRead());
            int length = in.readRawVarint32();
            if (length > bytes.length - in.getTotalBytesRead()) {
                break;
            }
            TracePacket.parseFrom(in.readRawBytes(length));
            packets++;
        }
        return packets;
    }
}
