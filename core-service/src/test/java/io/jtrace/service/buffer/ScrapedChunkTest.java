package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.CHUNK_BYTES;
import static io.jtrace.service.buffer.BufferTesting.PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.pkt;
import static io.jtrace.service.buffer.BufferTesting.stats;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.abi.ChunkHeader;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A chunk copied while its writer still held it (the scrape at a session's end) takes only the bytes its
 * counted packets fill: hundreds of threads' mostly empty last chunks must not wrap a small ring over the
 * data it kept.
 */
class ScrapedChunkTest {
    private static boolean scrape(TraceBuffer buffer, int writer, int chunkId, ChunkPayload c) {
        return buffer.copyChunk(PRODUCER, writer, chunkId, c.packetsWord(), c.bytesPaddedTo(CHUNK_BYTES), false);
    }

    @ParameterizedTest(name = "file-framed {0}")
    @ValueSource(booleans = {false, true})
    void aScrapedChunkStoresOnlyWhatItsPacketsFill(boolean fileFramed) {
        Supplier<ChunkPayload> chunk = fileFramed ? ChunkPayload::fileFramedChunk : ChunkPayload::chunk;
        ChunkPayload c = chunk.get().packet(pkt("a")).dropMarker().packet(pkt("b"));
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);

        assertTrue(scrape(buffer, 1, 0, c));

        assertEquals(c.size(), stats(buffer).getBytesWritten(), "of a " + CHUNK_BYTES + "-byte chunk");
        assertEquals(List.of("a", "b"), names(BufferTesting.read(buffer, true).packets()));
    }

    @Test
    void aRingKeepsWhatItHeldWhenManyWritersMostlyEmptyLastChunksAreScraped() {
        TraceBuffer buffer = new TraceBuffer(8 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        for (int id = 0; id < 4; id++) {
            BufferTesting.commitPadded(buffer, 1, id, ChunkPayload.chunk().packet(pkt("kept-" + id)));
        }
        for (int writer = 2; writer < 34; writer++) {
            scrape(buffer, writer, 0, ChunkPayload.chunk().packet(pkt("last-" + writer)));
        }

        List<String> names = names(BufferTesting.read(buffer, true).packets());
        assertEquals(0, stats(buffer).getChunksOverwritten(), names.toString());
        assertEquals(4 + 32, names.size());
    }

    @Test
    void aScrapedChunkWhoseSizesMayStillBePatchedIsStoredWhole() {
        ChunkPayload c = ChunkPayload.chunk().packet(pkt("a")).flags(ChunkHeader.FLAG_NEEDS_PATCHING);
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        scrape(buffer, 1, 0, c);
        assertEquals(CHUNK_BYTES, stats(buffer).getBytesWritten());
    }

    @Test
    void aScrapedChunkWhoseFramesDoNotWalkIsStoredWholeForTheReadOutToJudge() {
        // The second frame claims 1000 bytes of a 256-byte chunk.
        ChunkPayload c = ChunkPayload.chunk().packet(pkt("a")).raw(0xE8, 0x87, 0x80, 0x00).count(2);
        TraceBuffer buffer = new TraceBuffer(1 << 20, TraceBuffer.Policy.RING);
        scrape(buffer, 1, 0, c);
        assertEquals(CHUNK_BYTES, stats(buffer).getBytesWritten());
    }
}
