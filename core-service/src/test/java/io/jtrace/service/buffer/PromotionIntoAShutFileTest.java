package io.jtrace.service.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jtrace.protos.TracePacket;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.ChunkPromoter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer appending its own chunk to a file that has failed or closed ({@link FileAppender#tryReserve}
 * answers "shut", not "full"): the chunk is left to the service, untouched, and nothing goes into the
 * file's ring. Taking the negative answer for a place in the ring would copy the chunk to a position it
 * does not own and commit a slot of another range.
 */
class PromotionIntoAShutFileTest {
    private static final long SHUT = -2;

    @TempDir
    Path dir;

    @Test
    void aChunkForAFileThatIsShutIsLeftToTheServiceAndNothingIsWritten() throws Exception {
        SharedMemoryAbi abi = new SharedMemoryAbi(SharedMemoryBuffer.create(dir, 64 * 1024, 4096));
        abi.tryPartitionPage(0, PageLayout.DIV4);
        int index = abi.tryAcquireChunkForWriting(0, PageLayout.DIV4);
        int offset = abi.chunkOffset(0, PageLayout.DIV4, index);
        ChunkPayload payload = ChunkPayload.fileFramedChunk()
                .shortFrame(ChunkPayload.withSlot(TracePacket.newBuilder().setTimestamp(42).build().toByteArray()));
        abi.smb().buffer().put(offset + ChunkHeader.SIZE, payload.bytes());
        abi.writeChunkHeader(offset, 0, 1, payload.packetsWord());
        abi.releaseChunkAsComplete(0, index);

        ShutFile file = new ShutFile();
        Promotion promotion = Promotion.opening(3, 1, new PromotionTarget(1, abi, file, 100, 1000, Long.MAX_VALUE));

        assertEquals(ChunkPromoter.QUEUE, promotion.appendClaimed(0, index, payload.size()), "left to the service");
        assertEquals(List.of("tryReserve"), file.calls, "nothing copied, committed or written");
        assertEquals(ChunkState.COMPLETE, abi.chunkState(0, index), "the chunk is still the service's to read");
    }

    /** A file whose every reservation is refused as shut; it records what the writer asked of it. */
    private static final class ShutFile implements FileAppender {
        final List<String> calls = new ArrayList<>();

        @Override
        public long tryReserve(int length) {
            calls.add("tryReserve");
            return SHUT;
        }

        @Override
        public void put(long reservation, int at, ByteBuffer src, int offset, int length) {
            calls.add("put");
        }

        @Override
        public void put(long reservation, int at, byte[] src, int offset, int length) {
            calls.add("put");
        }

        @Override
        public void commit(long reservation, int length, int packets) {
            calls.add("commit");
        }

        @Override
        public long reserveDirect(int length) {
            calls.add("reserveDirect");
            return -1;
        }

        @Override
        public void writeDirect(long reservation, byte[] src, int length) {
            calls.add("writeDirect");
        }

        @Override
        public void endDirect(long reservation, int packets) {
            calls.add("endDirect");
        }

        @Override
        public long bytes() {
            return 0;
        }

        @Override
        public boolean makeRoom() {
            calls.add("makeRoom");
            return false;
        }
    }
}
