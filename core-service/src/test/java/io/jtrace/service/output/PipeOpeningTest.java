package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A trace file that is a named pipe: opened once its reader is there, refused with a reason when none is. */
class PipeOpeningTest {
    @TempDir
    Path dir;

    @Test
    void aPipeNobodyReadsIsRefusedWithAReasonAndNothingIsLeftOpenOrWaiting() throws Exception {
        Path fifo = fifo("unread.fifo");
        assertTrue(PipeOpening.isPipe(fifo));

        IOException e = assertThrows(IOException.class, () -> TraceFileChannel.open(fifo));
        assertTrue(e.getMessage().contains("no process has the pipe " + fifo + " open for reading"), e.getMessage());
        // The open that waited for a reader was let through and closed: no thread of ours still waits.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pipeThreadsAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(pipeThreadsAlive(), "the pipe's opening and releasing threads ended");
        // And no write end stayed open: a new reader and writer meet, and the reader gets an empty stream.
        CompletableFuture<byte[]> read = readAll(fifo);
        try (TraceFileChannel channel = TraceFileChannel.open(fifo)) {
            assertFalse(channel.positional());
        }
        assertArrayEquals(new byte[0], read.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aPipeWhoseReaderWaitsIsOpenedAtOnceAndItsReaderGetsTheBytes() throws Exception {
        Path fifo = fifo("read.fifo");
        CompletableFuture<byte[]> read = readAll(fifo);
        byte[] bytes = {1, 2, 3, 4, 5};
        try (TraceFileChannel channel = TraceFileChannel.open(fifo)) {
            channel.write(ByteBuffer.wrap(bytes), bytes.length, 0);
        }
        assertArrayEquals(bytes, read.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aRegularFileOrNothingAtAllIsNoPipe() throws Exception {
        Path file = dir.resolve("trace.pftrace");
        assertFalse(PipeOpening.isPipe(file), "nothing there");
        Files.writeString(file, "x");
        assertFalse(PipeOpening.isPipe(file));
        assertFalse(PipeOpening.isPipe(dir));
        assertEquals(1, Files.size(file));
    }

    private static boolean pipeThreadsAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("jtrace-pipe-open") || t.getName().equals("jtrace-pipe-release"));
    }

    private static CompletableFuture<byte[]> readAll(Path fifo) {
        return CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** A FIFO in the test's folder (the test is skipped where mkfifo is missing). */
    private Path fifo(String name) throws IOException, InterruptedException {
        Path fifo = dir.resolve(name);
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mkfifo.waitFor() == 0, "mkfifo");
        return fifo;
    }
}
