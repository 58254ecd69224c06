package io.jtrace.shm.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.testing.Race;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class WriterIdAllocatorTest {
    @Test
    void allocatesEveryIdFrom1To32767OnceThenMinusOne() {
        WriterIdAllocator ids = new WriterIdAllocator();
        BitSet seen = new BitSet();
        for (int i = 0; i < ChunkHeader.MAX_WRITER_ID; i++) {
            int id = ids.allocate();
            assertTrue(id >= 1 && id <= ChunkHeader.MAX_WRITER_ID, "id " + id);
            assertTrue(!seen.get(id), "id " + id + " handed out twice");
            seen.set(id);
        }
        assertEquals(-1, ids.allocate());
        assertEquals(-1, ids.allocate());
    }

    @Test
    void freedIdIsHandedOutAgain() {
        WriterIdAllocator ids = new WriterIdAllocator();
        for (int i = 0; i < ChunkHeader.MAX_WRITER_ID; i++) {
            ids.allocate();
        }
        ids.free(12345);
        assertEquals(12345, ids.allocate());
        assertEquals(-1, ids.allocate());
        ids.free(ChunkHeader.MAX_WRITER_ID);
        assertEquals(ChunkHeader.MAX_WRITER_ID, ids.allocate());
    }

    @Test
    void firstIdIsOneNeverZero() {
        assertEquals(1, new WriterIdAllocator().allocate());
    }

    @Test
    void freeingAnIdTwiceThrows() {
        WriterIdAllocator ids = new WriterIdAllocator();
        int id = ids.allocate();
        ids.free(id);
        assertThrows(IllegalStateException.class, () -> ids.free(id));
        assertThrows(IllegalStateException.class, () -> ids.free(500), "never allocated");
    }

    @Test
    void freeingSomethingThatIsNotAWriterIdThrows() {
        WriterIdAllocator ids = new WriterIdAllocator();
        for (int bad : new int[] {0, -1, ChunkHeader.MAX_WRITER_ID + 1, Integer.MAX_VALUE}) {
            assertThrows(IllegalArgumentException.class, () -> ids.free(bad), "id " + bad);
        }
        assertEquals(1, ids.allocate(), "id 0 stays reserved");
    }

    @Test
    void racingAllocatorsNeverGetTheSameId() throws Exception {
        WriterIdAllocator ids = new WriterIdAllocator();
        try (Race race = new Race(4)) {
            List<List<Integer>> results = race.run(thread -> {
                List<Integer> mine = new ArrayList<>();
                int id;
                while ((id = ids.allocate()) > 0) {
                    mine.add(id);
                }
                return mine;
            });
            BitSet seen = new BitSet();
            int total = 0;
            for (List<Integer> mine : results) {
                for (int id : mine) {
                    assertTrue(!seen.get(id), "id " + id + " handed out twice");
                    seen.set(id);
                    total++;
                }
            }
            assertEquals(ChunkHeader.MAX_WRITER_ID, total);
        }
    }
}
