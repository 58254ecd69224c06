package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a thread that needs room in a full ring does ({@link FileLog#makeRoom}): it writes the committed
 * ranges at the ring's front, which hands their space back, and nothing past the first range it cannot
 * claim, which would free nothing yet (the file thread writes those). Each thread that found the ring
 * full used to scan and write every range in it: with many threads on few cores that scan was most of
 * the process's work.
 */
class FileLogRoomTest {
    private static final int RANGE = 16;
    private static final int RING = 4 * RANGE;

    /** Every write the log makes, as {@code position:length}. */
    private final List<String> writes = new ArrayList<>();
    private final FileLog log = new FileLog(new FileTarget() {
        @Override
        public synchronized void write(ByteBuffer buffer, int length, long position) {
            writes.add(position + ":" + length);
        }

        @Override
        public boolean positional() {
            return true;
        }

        @Override
        public void close() {}
    }, RING, false);

    @Test
    void aRangeStillBeingFilledAtTheFrontLeavesTheRangesBehindItToTheFileThread() {
        long front = log.tryReserve(RANGE);
        appendCommitted(3);
        assertEquals(FileLog.FULL, log.tryReserve(RANGE), "the ring is full");

        assertFalse(log.makeRoom(), "nothing at the front can be written yet");
        assertEquals(List.of(), writes, "the committed ranges past the front are not this thread's to write");

        log.consumeNow();
        assertEquals(List.of("16:48"), writes, "the file thread writes them, in one run");
        assertEquals(FileLog.FULL, log.tryReserve(RANGE), "their space waits for the front");

        commit(front);
        assertTrue(log.makeRoom());
        assertEquals(List.of("16:48", "0:16"), writes);
        assertTrue(log.tryReserve(RING) >= 0, "the whole ring is free again");
    }

    @Test
    void theCommittedRangesAtTheFrontAreWrittenUpToTheFirstRangeStillBeingFilled() {
        appendCommitted(2);
        long third = log.tryReserve(RANGE);
        appendCommitted(1);
        assertEquals(FileLog.FULL, log.tryReserve(RANGE), "the ring is full");

        assertTrue(log.makeRoom());
        assertEquals(List.of("0:32"), writes, "the first two, in one write; not the last, behind the third");
        assertTrue(log.tryReserve(2 * RANGE) >= 0, "the first two's space is free");

        commit(third);
        log.consumeNow();
        assertEquals(List.of("0:32", "32:32"), writes);
    }

    private void appendCommitted(int ranges) {
        for (int i = 0; i < ranges; i++) {
            commit(log.tryReserve(RANGE));
        }
    }

    private void commit(long reservation) {
        byte[] bytes = new byte[RANGE];
        Arrays.fill(bytes, (byte) 7);
        log.put(reservation, 0, bytes, 0, RANGE);
        log.commit(reservation, RANGE, 1);
    }
}
