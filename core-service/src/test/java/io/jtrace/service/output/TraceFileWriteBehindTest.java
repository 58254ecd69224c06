package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace file is written behind the threads that fill it ({@link FileLog}): every flush must still
 * leave exactly the packets written so far, in order, whatever the packets' sizes and however the
 * flushes fall; a file that does not take the bytes must not hold the filling thread up while buffers
 * are left; a failed write must reach that thread as an error, never a hang.
 */
class TraceFileWriteBehindTest {
    @TempDir
    Path dir;

    @Test
    void everyFlushLeavesExactlyThePacketsWrittenSoFar() throws IOException {
        Path file = dir.resolve("flushed.pftrace");
        checkFlushesAndContents(() -> new TraceFileWriter(file), file);
    }

    /** Every write appends, so a pipe (here a FIFO) takes a trace as a file does. */
    @Test
    void aPipeTakesTheTraceInOrder() throws Exception {
        Path fifo = fifo("trace.fifo");
        CompletableFuture<byte[]> read = readAll(fifo);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (TraceFileWriter writer = new TraceFileWriter(fifo)) {
            // About 4.3 MB, more than the file's ring holds: the pipe, 64 KiB at a time, falls behind, so the
            // ring is written both by the file thread and by this one when it is full.
            for (int i = 0; i < 20_000; i++) {
                byte[] packet = TracePacket.newBuilder().setTimestamp(i)
                        .setSynchronizationMarker(com.google.protobuf.ByteString.copyFrom(new byte[200])).build().toByteArray();
                writer.packet(packet, 0, packet.length, new byte[0], 0);
                expected.write(Trace.newBuilder().addPacket(TracePacket.parseFrom(packet)).build().toByteArray());
                if (i % 5_000 == 0) {
                    writer.flush();
                }
            }
        }
        assertArrayEquals(expected.toByteArray(), read.get(60, TimeUnit.SECONDS));
    }

    /**
     * A pipe whose reader has not read yet takes nothing past its own small buffer, so its write blocks.
     * Meanwhile the filling thread goes on into the other buffers: a writer that wrote on that thread
     * would hang here (hence the preemptive timeout: it detects a hang, it measures no time). Once the
     * reader reads, the trace arrives whole and in order.
     */
    @Test
    void aFileThatTakesNothingYetDoesNotHoldUpTheThreadThatFillsTheBuffers() throws Exception {
        Path fifo = fifo("stalled.fifo");
        CountDownLatch startReading = new CountDownLatch(1);
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try (InputStream in = Files.newInputStream(fifo)) {
                startReading.await();
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        byte[] packet = TracePacket.newBuilder().setTimestamp(1)
                .setSynchronizationMarker(com.google.protobuf.ByteString.copyFrom(new byte[60_000])).build().toByteArray();
        byte[] framed = Trace.newBuilder().addPacket(TracePacket.parseFrom(packet)).build().toByteArray();
        try (TraceFileWriter writer = new TraceFileWriter(fifo)) {
            // Five buffers' worth: all handed over while the first write is still stuck in the pipe.
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                for (int i = 0; i < 5 * 256 * 1024 / framed.length; i++) {
                    writer.framedPackets(framed, 0, framed.length, 1);
                    expected.write(framed);
                }
            });
            assertFalse(read.isDone(), "the reader has not read yet");
            startReading.countDown();
        }
        assertArrayEquals(expected.toByteArray(), read.get(60, TimeUnit.SECONDS));
    }

    /**
     * The file thread may not get to run for a long time (many busy threads, few cores): the service
     * then writes the ring itself, in order, as soon as it is full. Here there is no file thread at all,
     * and a ring of 1 KiB.
     */
    @Test
    void withoutTheFileThreadTheServiceWritesTheRingInOrderWhenItIsFull() {
        Path file = dir.resolve("filler.bin");
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        // A service that waited for the file thread would wait forever: the timeout catches that.
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (FileLog log = new FileLog(TraceFileChannel.open(file), 1024, false)) {
                for (int i = 0; i < 200; i++) {
                    int length = 1 + i * 7 % 512;
                    byte[] bytes = new byte[length];
                    for (int k = 0; k < length; k++) {
                        bytes[k] = (byte) (i + k);
                    }
                    long reservation = log.reserve(length);
                    log.put(reservation, 0, bytes, 0, length);
                    log.commit(reservation, length, 1);
                    expected.write(bytes);
                }
                log.sync();
                assertArrayEquals(expected.toByteArray(), Files.readAllBytes(file), "synced: every append, in order");
                assertEquals(200, log.packetsWritten());
            }
        });
    }

    /**
     * Appenders that find the ring full are told so at once (what they do then is theirs: write the ring
     * out, or write past it). The file gets the ranges in the order they were reserved, whatever the
     * order of their commits, and the room comes back once they are written.
     */
    @Test
    void anAppenderThatFindsTheRingFullIsToldAtOnceAndTheFileKeepsTheOrderOfReservation() throws IOException {
        Path file = dir.resolve("full.bin");
        byte[] ones = filled(512, (byte) 1);
        byte[] twos = filled(512, (byte) 2);
        try (FileLog log = new FileLog(TraceFileChannel.open(file), 1024, false)) {
            long first = log.tryReserve(512);
            long second = log.tryReserve(512);
            assertTrue(first >= 0 && second >= 0, "two halves fit");
            assertEquals(FileLog.FULL, log.tryReserve(1), "nothing more fits");
            log.put(second, 0, twos, 0, 512);
            log.commit(second, 512, 1);
            log.put(first, 0, ones, 0, 512);
            log.commit(first, 512, 1);
            assertEquals(FileLog.FULL, log.tryReserve(1), "committed is not written: still no room");
            log.sync();
            byte[] expected = new byte[1024];
            System.arraycopy(ones, 0, expected, 0, 512);
            System.arraycopy(twos, 0, expected, 512, 512);
            assertArrayEquals(expected, Files.readAllBytes(file), "first reserved, first in the file");
            assertTheWholeRingIsFree(log, 1024);
        }
    }

    /**
     * An appender descheduled between its reservation and its commit holds back only its own range: the
     * ranges reserved after it go into the file at their positions at once, and its range fills the hole
     * when it commits. The room behind the hole comes back only then (the ring is reused in order).
     */
    @Test
    void aRangeStillBeingFilledHoldsBackOnlyItselfInARegularFile() throws IOException {
        Path file = dir.resolve("hole.bin");
        try (FileLog log = new FileLog(TraceFileChannel.open(file), 1024, false)) {
            long open = log.tryReserve(100);
            byte[] later = filled(300, (byte) 7);
            long after = log.tryReserve(300);
            log.put(after, 0, later, 0, 300);
            log.commit(after, 300, 1);
            assertTrue(log.consumeNow(), "the range after the hole is written");
            byte[] onDisk = Files.readAllBytes(file);
            assertEquals(400, onDisk.length, "written at its own position, past the hole");
            assertArrayEquals(later, java.util.Arrays.copyOfRange(onDisk, 100, 400));
            assertEquals(1, log.packetsWritten());
            assertEquals(FileLog.FULL, log.tryReserve(700), "the ring is not reused past the hole");
            byte[] first = filled(100, (byte) 3);
            log.put(open, 0, first, 0, 100);
            log.commit(open, 100, 1);
            log.sync();
            byte[] expected = new byte[400];
            System.arraycopy(first, 0, expected, 0, 100);
            System.arraycopy(later, 0, expected, 100, 300);
            assertArrayEquals(expected, Files.readAllBytes(file), "the hole filled, nothing written twice");
            assertEquals(2, log.packetsWritten());
            assertTheWholeRingIsFree(log, 1024);
        }
    }

    /**
     * Application threads write the file themselves when the ring is full, and may be interrupted while
     * they do: an interrupt closes a channel, so the file is opened again and the write repeated. Every
     * range reaches the file whole, and each thread's interrupt status is what the interrupts left it:
     * the interrupts stop half-way, and the threads' later writes must not have swallowed the last one.
     */
    @Test
    void appendersInterruptedWhileTheyWriteTheFileLoseNothingAndKeepTheirInterrupt() throws Exception {
        Path file = dir.resolve("interrupted.bin");
        int threads = 3;
        int appends = 2000;
        int length = 100;
        boolean[] interruptedAtEnd = new boolean[threads];
        java.util.concurrent.atomic.AtomicIntegerArray progress = new java.util.concurrent.atomic.AtomicIntegerArray(threads);
        // Set once every appender has been interrupted: an appender that finished before its first
        // interrupt (a slow interrupter on a loaded machine) would have no status to keep.
        java.util.concurrent.atomic.AtomicBoolean firstRoundDone = new java.util.concurrent.atomic.AtomicBoolean();
        try (FileLog log = new FileLog(TraceFileChannel.open(file), 1024, false)) {
            Thread[] appenders = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int id = t;
                appenders[t] = new Thread(() -> {
                    while (!firstRoundDone.get()) {
                        Thread.onSpinWait(); // not a blocking wait: the interrupt stays pending
                    }
                    for (int i = 0; i < appends; i++) {
                        byte[] bytes = filled(length, (byte) (id * 64 + i % 64));
                        long reservation;
                        while ((reservation = log.tryReserve(length)) == FileLog.FULL) {
                            log.makeRoom();
                        }
                        if (reservation < 0) {
                            return; // the file failed: the counts below tell
                        }
                        log.put(reservation, 0, bytes, 0, length);
                        log.commit(reservation, length, 1);
                        log.makeRoom();
                        progress.set(id, i);
                    }
                    interruptedAtEnd[id] = Thread.interrupted();
                });
                appenders[t].start();
            }
            Thread interrupter = new Thread(() -> {
                while (java.util.stream.IntStream.range(0, threads).anyMatch(t -> progress.get(t) < appends / 2)) {
                    for (Thread appender : appenders) {
                        appender.interrupt();
                    }
                    firstRoundDone.set(true);
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                }
            });
            interrupter.start();
            for (Thread appender : appenders) {
                appender.join(TimeUnit.SECONDS.toMillis(60));
            }
            interrupter.join(TimeUnit.SECONDS.toMillis(60));
            log.sync();
            assertEquals((long) threads * appends, log.packetsWritten());
        }
        byte[] onDisk = Files.readAllBytes(file);
        assertEquals(threads * appends * length, onDisk.length);
        int[] next = new int[threads];
        for (int at = 0; at < onDisk.length; at += length) {
            assertTrue(uniformRange(onDisk, at, at + length), "a range whole at " + at);
            int id = (onDisk[at] & 0xFF) / 64;
            assertEquals(next[id]++ % 64, (onDisk[at] & 0xFF) % 64, "thread " + id + "'s ranges in its order");
        }
        for (int t = 0; t < threads; t++) {
            assertEquals(appends, next[t], "every range of thread " + t);
            assertTrue(interruptedAtEnd[t], "thread " + t + " still interrupted: its status was given back");
        }
    }

    private static boolean uniformRange(byte[] bytes, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            if (bytes[i] != bytes[from]) {
                return false;
            }
        }
        return true;
    }

    /**
     * An appender that finds the ring full writes its bytes into the file itself, past the ring, at a
     * position of its own: the ring's ranges and the direct ones all land whole, none overlapping; a
     * pipe cannot be written so and says no.
     */
    @Test
    void anAppenderThatFindsTheRingFullWritesPastItAtItsOwnPosition() throws Exception {
        Path file = dir.resolve("direct.bin");
        byte[] ringBytes = filled(600, (byte) 1);
        byte[] directBytes = filled(600, (byte) 2);
        try (FileLog log = new FileLog(TraceFileChannel.open(file), 1024, false)) {
            long reservation = log.tryReserve(600);
            log.put(reservation, 0, ringBytes, 0, 600);
            log.commit(reservation, 600, 1);
            assertEquals(FileLog.FULL, log.tryReserve(600), "precondition: the ring is full");
            long direct = log.file().reserveDirect(600);
            assertEquals(600, direct, "after the ring's range (the first epoch's reservation is its position)");
            log.file().writeDirect(direct, directBytes, 600);
            log.file().endDirect(direct, 1);
            assertEquals(1200, log.position());
            log.sync();
            assertEquals(2, log.packetsWritten());
        }
        byte[] expected = new byte[1200];
        System.arraycopy(ringBytes, 0, expected, 0, 600);
        System.arraycopy(directBytes, 0, expected, 600, 600);
        assertArrayEquals(expected, Files.readAllBytes(file));

        Path fifo = fifo("direct.fifo");
        CompletableFuture<byte[]> read = readAll(fifo);
        try (FileLog log = new FileLog(TraceFileChannel.open(fifo), 1024, false)) {
            assertEquals(-1, log.file().reserveDirect(10), "a pipe is written in order only");
        }
        assertEquals(0, read.get(30, TimeUnit.SECONDS).length, "nothing was written");
    }

    /** Closing waits for a write past the ring that began before it; one after it is refused. */
    @Test
    void closeWaitsForAWritePastTheRingUnderWay() throws Exception {
        Path file = dir.resolve("direct-close.bin");
        FileLog log = new FileLog(TraceFileChannel.open(file), 1024, false);
        long reservation = log.file().reserveDirect(10);
        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
            try {
                log.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        Thread.sleep(200);
        assertFalse(closing.isDone(), "close waits while a write past the ring is under way");
        log.file().writeDirect(reservation, filled(10, (byte) 5), 10);
        log.file().endDirect(reservation, 1);
        closing.get(60, TimeUnit.SECONDS);
        assertArrayEquals(filled(10, (byte) 5), Files.readAllBytes(file));
        assertEquals(-1, log.file().reserveDirect(10), "closed: no more");
    }

    /**
     * A flush makes the file whole up to what was reserved when it began: it waits for a write past the
     * ring under way then, and not for one begun after it (that one counts in the next epoch, the top
     * bit of its reservation), which goes on writing meanwhile.
     */
    @Test
    void aFlushWaitsForTheWritesPastTheRingUnderWayWhenItBeganNotForLaterOnes() throws Exception {
        Path file = dir.resolve("direct-flush.bin");
        try (FileLog log = new FileLog(TraceFileChannel.open(file), 1024, false)) {
            long before = log.file().reserveDirect(10);
            CompletableFuture<Void> flushing = CompletableFuture.runAsync(() -> {
                try {
                    log.sync();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long after;
            while ((after = log.file().reserveDirect(1)) >>> 62 == 0 && System.nanoTime() < deadline) {
                log.file().endDirect(after, 0); // taken before the flush flipped the epoch: give it back
                Thread.onSpinWait();
            }
            assertEquals(1, after >>> 62, "the flush began: a new write past the ring counts in the next epoch");
            assertFalse(flushing.isDone(), "the flush waits for the write under way when it began");
            log.file().writeDirect(before, filled(10, (byte) 6), 10);
            log.file().endDirect(before, 1);
            flushing.get(60, TimeUnit.SECONDS);
            log.file().writeDirect(after, filled(1, (byte) 7), 1);
            log.file().endDirect(after, 1);
        }
    }

    /** A pipe cannot be written at a position: nothing goes out past a range still being filled. */
    @Test
    void aPipeGetsNothingPastARangeStillBeingFilled() throws Exception {
        Path fifo = fifo("hole.fifo");
        CompletableFuture<byte[]> read = readAll(fifo);
        byte[] first = filled(100, (byte) 3);
        byte[] later = filled(300, (byte) 7);
        try (FileLog log = new FileLog(TraceFileChannel.open(fifo), 1024, false)) {
            long open = log.tryReserve(100);
            long after = log.tryReserve(300);
            log.put(after, 0, later, 0, 300);
            log.commit(after, 300, 1);
            assertFalse(log.consumeNow(), "nothing can go out before the hole");
            assertEquals(0, log.packetsWritten());
            log.put(open, 0, first, 0, 100);
            log.commit(open, 100, 1);
            log.sync();
            assertEquals(2, log.packetsWritten());
        }
        byte[] expected = new byte[400];
        System.arraycopy(first, 0, expected, 0, 100);
        System.arraycopy(later, 0, expected, 100, 300);
        assertArrayEquals(expected, read.get(30, TimeUnit.SECONDS), "in order, once");
    }

    /** A FIFO in the test's folder (the test is skipped where mkfifo is missing). */
    private Path fifo(String name) throws IOException, InterruptedException {
        Path fifo = dir.resolve(name);
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assumeTrue(mkfifo.waitFor() == 0, "mkfifo");
        return fifo;
    }

    /** Reads {@code fifo} to its end on another thread: what the writer put into it, once it closed it. */
    private static CompletableFuture<byte[]> readAll(Path fifo) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return Files.readAllBytes(fifo);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Everything was written out: a range as large as the ring fits again (committed empty, so close ends). */
    private static void assertTheWholeRingIsFree(FileLog log, int capacity) {
        long whole = log.tryReserve(capacity);
        assertTrue(whole >= 0, "all written: the whole ring is free again");
        log.commit(whole, capacity, 0);
    }

    /**
     * The file thread writes a stream out by itself, without a flush: appends that cross its wake mark
     * reach the file while nobody syncs, the thread keeps up with more while the stream goes on, and the
     * last range, which ends on a wake mark, is written whether the thread was looking or asleep then.
     */
    @Test
    void theFileThreadWritesAStreamOutWithoutAFlush() throws Exception {
        Path file = dir.resolve("streamed.bin");
        int range = 8 * 1024;
        int ranges = 4 * FileThread.WAKE_BYTES / range;
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        try (FileLog log = new FileLog(TraceFileChannel.open(file))) {
            for (int i = 0; i < ranges; i++) {
                byte[] bytes = filled(range, (byte) i);
                long reservation = log.tryReserve(range);
                assertTrue(reservation >= 0, "the ring holds four wake marks' worth");
                log.put(reservation, 0, bytes, 0, range);
                log.commit(reservation, range, 1);
                expected.write(bytes);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (Files.size(file) < (long) range * ranges) {
                assertTrue(System.nanoTime() < deadline, "the file thread never wrote the stream out: "
                        + Files.size(file) + " of " + (long) range * ranges + " bytes");
                Thread.sleep(5);
            }
            assertArrayEquals(expected.toByteArray(), Files.readAllBytes(file), "every range, in order, unsynced");
            assertEquals(ranges, log.packetsWritten());
        }
    }

    /**
     * A file thread that finds too little to keep looking writes out what is committed before it parks:
     * a range committed while it was looking (its appender saw it awake, so will not wake it) is not
     * left in the ring until the next wake mark, flush or close.
     */
    @Test
    void aFileThreadGoingToSleepWritesOutWhatIsCommittedFirst() throws Exception {
        Path file = dir.resolve("before-sleep.bin");
        try (FileLog log = new FileLog(TraceFileChannel.open(file), 1024, false)) {
            FileThread thread = new FileThread(log, 512, false);
            long reservation = log.tryReserve(100);
            log.put(reservation, 0, filled(100, (byte) 7), 0, 100);
            log.commit(reservation, 100, 1);
            long copying = log.tryReserve(50);

            boolean parks;
            byte[] inTheFile;
            long unwritten;
            try {
                parks = thread.announceSleep();
                inTheFile = Files.readAllBytes(file);
                unwritten = log.unwrittenBytes();
                thread.endSleep();
            } finally {
                // Committed whatever happened: the close waits for every reserved range.
                log.put(copying, 0, filled(50, (byte) 8), 0, 50);
                log.commit(copying, 50, 1);
            }

            assertTrue(parks, "150 unwritten bytes are under the 512 that keep it looking");
            assertArrayEquals(filled(100, (byte) 7), inTheFile, "the committed range, in the file");
            assertEquals(50, unwritten, "only the range still being copied in is left");
        }
    }

    private static byte[] filled(int length, byte value) {
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, value);
        return bytes;
    }

    /**
     * Threads append their own frames while the service writes packets and flushes: every flush returns
     * (the appends after it started do not hold it up, nor does consumption that passes where it
     * started), and the file holds every frame once, each thread's in its order.
     */
    @Test
    void framesAppendedByManyThreadsWhileTheServiceFlushesAreAllInTheFileEachThreadsInOrder() throws Exception {
        Path file = dir.resolve("many.pftrace");
        int threads = 4;
        int frames = 20_000;
        try (TraceFileWriter writer = new TraceFileWriter(file)) {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < frames; i++) {
                        byte[] framed = Trace.newBuilder().addPacket(TracePacket.newBuilder()
                                .setTrustedPacketSequenceId(10 + thread).setTimestamp(i)).build().toByteArray();
                        long reservation;
                        while ((reservation = writer.tryReserve(framed.length)) < 0) {
                            Thread.onSpinWait();
                        }
                        writer.put(reservation, 0, framed, 0, framed.length);
                        writer.commit(reservation, framed.length, 1);
                    }
                    return null;
                }));
            }
            assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                byte[] own = TracePacket.newBuilder().setTrustedPacketSequenceId(1).build().toByteArray();
                while (!done.stream().allMatch(java.util.concurrent.Future::isDone)) {
                    writer.packet(own, 0, own.length, new byte[0], 0);
                    writer.flush();
                }
            });
            for (java.util.concurrent.Future<?> f : done) {
                f.get();
            }
            pool.shutdown();
        }
        long[] next = new long[threads];
        for (TracePacket p : Trace.parseFrom(Files.readAllBytes(file)).getPacketList()) {
            int thread = p.getTrustedPacketSequenceId() - 10;
            if (thread >= 0) {
                assertEquals(next[thread]++, p.getTimestamp(), "thread " + thread + "'s frames in order, once");
            }
        }
        for (int t = 0; t < threads; t++) {
            assertEquals(frames, next[t], "every frame of thread " + t);
        }
    }

    /** A file that refuses its bytes (/dev/full: no space left) fails the session's next call; nothing hangs. */
    @Test
    void aFailedWriteReachesTheFillingThreadAsAnErrorAndClosingStillEnds() {
        onAFullDevice(writer -> {
            byte[] packet = new byte[100_000];
            UncheckedIOException failed = assertThrows(UncheckedIOException.class, () -> {
                // Far more than the buffers hold: the failure of the first write must come back.
                for (int i = 0; i < 1000; i++) {
                    writer.packet(packet, 0, packet.length, new byte[0], 0);
                }
            });
            assertTrue(String.valueOf(failed.getCause().getMessage()).contains("writing the trace file failed"),
                    String.valueOf(failed.getCause()));
            assertThrows(IOException.class, writer::flush);
            assertThrows(IOException.class, writer::close);
            writer.close();
        });
    }

    /** A failure that first shows when the last bytes go out, at close, is thrown by close. */
    @Test
    void aWriteThatFailsOnlyAtCloseIsThrownByClose() {
        onAFullDevice(writer -> {
            writer.packet(new byte[100], 0, 100, new byte[0], 0);
            IOException failed = assertThrows(IOException.class, writer::close);
            assertTrue(String.valueOf(failed.getMessage()).contains("writing the trace file failed"), failed.toString());
        });
    }

    private interface WriterUse {
        void accept(TraceFileWriter writer) throws Exception;
    }

    /** Runs {@code use} on a writer of /dev/full (every write fails: no space left), failing rather than hanging. */
    private static void onAFullDevice(WriterUse use) {
        Path full = Path.of("/dev/full");
        assumeTrue(Files.isWritable(full), "/dev/full");
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> use.accept(new TraceFileWriter(full)));
    }

    /** Closing ends the file's thread, whether the writes went well or failed. */
    @Test
    void closingEndsTheWriteBehindThreadAfterSuccessAndAfterFailure() throws Exception {
        Path file = dir.resolve("ends.pftrace");
        Thread afterSuccess = writeBehindThreadOf(() -> new TraceFileWriter(file));
        Thread afterFailure = null;
        Path full = Path.of("/dev/full");
        if (Files.isWritable(full)) {
            afterFailure = writeBehindThreadOf(() -> new TraceFileWriter(full));
        }
        afterSuccess.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(afterSuccess.isAlive(), "the thread of a file closed after good writes ended");
        if (afterFailure != null) {
            afterFailure.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(afterFailure.isAlive(), "the thread of a file closed after a failed write ended");
        }
    }

    /** Opens a writer, writes past its first buffer, closes it, and returns the file thread it started. */
    private static Thread writeBehindThreadOf(WriterFactory factory) throws IOException {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        TraceFileWriter writer = factory.open();
        List<Thread> started = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t) && t.getName().equals("jtrace-file-writer")).toList();
        assertEquals(1, started.size(), "one file thread per file: " + started);
        try {
            writer.packet(new byte[300_000], 0, 300_000, new byte[0], 0);
            writer.close();
        } catch (IOException | UncheckedIOException e) {
            writer.close();
        }
        return started.get(0);
    }

    /** A packet after close, however small, fails: it would sit in a buffer nobody writes. */
    @Test
    void aSmallPacketAfterCloseFails() throws IOException {
        TraceFileWriter writer = new TraceFileWriter(dir.resolve("small.pftrace"));
        writer.close();
        assertThrows(UncheckedIOException.class, () -> writer.packet(new byte[10], 0, 10, new byte[0], 0));
        assertThrows(UncheckedIOException.class, () -> writer.framedPackets(new byte[12], 0, 12, 1));
    }

    @Test
    void closingTwiceDoesNothingTheSecondTime() throws IOException {
        Path file = dir.resolve("twice.pftrace");
        TraceFileWriter writer = new TraceFileWriter(file);
        writer.packet(new byte[5000], 0, 5000, new byte[0], 0);
        writer.close();
        byte[] closed = Files.readAllBytes(file);
        Files.delete(file);
        writer.close();
        assertFalse(Files.exists(file), "the second close did not write the file again");
        assertEquals(5003, closed.length);
    }

    /** A closed file is never opened again by a later write. */
    @Test
    void aWriteAfterCloseFailsInsteadOfReopeningTheFile() throws IOException {
        Path file = dir.resolve("closed.pftrace");
        TraceFileWriter writer = new TraceFileWriter(file);
        writer.packet(new byte[10_000], 0, 10_000, new byte[0], 0);
        writer.flush();
        writer.close();
        byte[] closed = Files.readAllBytes(file);
        assertThrows(UncheckedIOException.class,
                () -> writer.packet(new byte[300_000], 0, 300_000, new byte[0], 0));
        assertArrayEquals(closed, Files.readAllBytes(file), "the closed file was not written again");
        Files.delete(file);
        assertThrows(UncheckedIOException.class,
                () -> writer.packet(new byte[300_000], 0, 300_000, new byte[0], 0));
        assertFalse(Files.exists(file));
    }

    @Test
    void aDeviceSuchAsDevNullCanBeTheTraceFile() throws IOException {
        try (TraceFileWriter writer = new TraceFileWriter(Path.of("/dev/null"))) {
            writer.packet(new byte[100], 0, 100, new byte[3], 3);
            writer.flush();
            assertEquals(1, writer.packets());
        }
    }

    /**
     * Writes packets of sizes from a few bytes to past the writer's buffer, as single packets and as
     * framed runs, flushing after random ones; after every flush the file must be the trace of
     * everything written so far, byte for byte.
     */
    private interface WriterFactory {
        TraceFileWriter open() throws IOException;
    }

    private static void checkFlushesAndContents(WriterFactory factory, Path file) throws IOException {
        Random random = new Random(42);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        int[] sizes = {0, 1, 7, 30, 127, 128, 4_000, 4_096, 5_000, 70_000, 300_000};
        int packets = 0;
        try (TraceFileWriter writer = factory.open()) {
            for (int i = 0; i < 400; i++) {
                int size = sizes[random.nextInt(sizes.length)] + random.nextInt(3);
                byte[] packet = TracePacket.newBuilder().setTimestamp(i)
                        .setTrustedPacketSequenceId(1 + random.nextInt(100))
                        .setSynchronizationMarker(com.google.protobuf.ByteString.copyFrom(new byte[size]))
                        .build().toByteArray();
                byte[] framed = Trace.newBuilder().addPacket(TracePacket.parseFrom(packet)).build().toByteArray();
                if (random.nextBoolean()) {
                    int trailer = Math.min(3, packet.length);
                    byte[] trailerBytes = java.util.Arrays.copyOfRange(packet, packet.length - trailer, packet.length);
                    writer.packet(packet, 0, packet.length - trailer, trailerBytes, trailer);
                } else {
                    writer.framedPackets(framed, 0, framed.length, 1);
                }
                expected.write(framed);
                packets++;
                if (random.nextInt(5) == 0) {
                    writer.flush();
                    assertFileHolds(file, expected.toByteArray(), packets);
                }
            }
            assertEquals(expected.size(), writer.bytes(), "bytes: everything appended, written or not");
            writer.flush();
            assertEquals(packets, writer.packets(), "packets: those in the file");
        }
        assertFileHolds(file, expected.toByteArray(), packets);
    }

    private static void assertFileHolds(Path file, byte[] expected, int packets) throws IOException {
        byte[] actual = Files.readAllBytes(file);
        assertEquals(expected.length, actual.length, "the file's length");
        assertArrayEquals(expected, actual);
        List<TracePacket> parsed = Trace.parseFrom(actual).getPacketList();
        assertEquals(packets, parsed.size());
    }
}
