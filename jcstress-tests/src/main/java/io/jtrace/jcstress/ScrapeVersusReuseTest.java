package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkSnapshot;
import io.jtrace.shm.abi.InProcessSmb;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import java.nio.ByteBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Protocol (3), scrape versus reuse: the service's copy of a chunk it does not own
 * ({@link ChunkSnapshot#take}) never pairs one use's header with another use's bytes.
 *
 * <p>Each test starts from a COMPLETE chunk of use A (writer 5, chunk id 10, 2 packets). One actor
 * scrapes it; the other moves it out as the service does (COMPLETE → BEING_READ, then
 * {@code releaseChunkAsFree}: header cleared, page generation bumped, FREE) and then plays the next
 * writer taking the same chunk (partition, CAS FREE → BEING_WRITTEN) and writing use B into it. In the
 * service the free happens on the scraping thread itself; here it races with the scrape, the strongest
 * adversary the protocol must survive.
 *
 * <p>Orderings proven: the free's header clear precedes its release increment of the generation, which
 * precedes the CAS to FREE that the next writer's CAS reads; the scrape loads the generation with
 * acquire before the header, and again after an acquire fence that follows the copy — so a copy that
 * saw anything of use B sees the increment and is discarded, and a header loaded after the generation
 * is never one the free cleared.
 *
 * <p>r1: 0 nothing to take, 1 torn (discarded), 2 taken. r2, for a taken copy: 1 all of use A (its
 * header and its packets), 2 all of use B (its header and the packets it counts), -1 a mix.
 */
public class ScrapeVersusReuseTest {
    private ScrapeVersusReuseTest() {}

    static final int WRITER = 5;
    static final int CHUNK_ID_A = 10;
    static final int USE_A = 1;
    static final int USE_B = 2;
    static final PageLayout LAYOUT = PageLayout.DIV4;
    private static final ThreadLocal<ChunkSnapshot> SNAPSHOT = ThreadLocal.withInitial(ChunkSnapshot::new);

    /** A one-page SMB whose chunk 0 is COMPLETE with use A, waiting for the service. */
    static SharedMemoryAbi completeChunkOfUseA() {
        SharedMemoryAbi abi = InProcessSmb.abi(1);
        abi.tryPartitionPage(0, LAYOUT);
        abi.tryAcquireChunkForWriting(0, LAYOUT);
        int offset = abi.chunkOffset(0, LAYOUT, 0);
        abi.writeChunkHeader(offset, CHUNK_ID_A, WRITER, ChunkHeader.packetsWord(0, 0));
        for (int i = 0; i < 2; i++) {
            Packets.put(abi.smb().buffer(), offset + ChunkHeader.SIZE + i * Packets.FRAME, USE_A, i);
        }
        abi.publishPackets(offset, ChunkHeader.writerAndPackets(WRITER, ChunkHeader.packetsWord(2, 0)));
        abi.releaseChunkAsComplete(0, 0);
        return abi;
    }

    /** The service moves the chunk out and the next writer takes it: returns the new use's chunk offset. */
    static int moveOutAndReacquire(SharedMemoryAbi abi) {
        abi.tryAcquireChunkForReading(0, 0);
        abi.releaseChunkAsFree(0, 0);
        abi.tryPartitionPage(0, LAYOUT);
        return abi.chunkOffset(0, LAYOUT, abi.tryAcquireChunkForWriting(0, LAYOUT));
    }

    /** Use B's packets, each published as it is finished, under a header written first, as TraceWriter does. */
    static void writeUseB(SharedMemoryAbi abi, int offset, int chunkId) {
        abi.writeChunkHeader(offset, chunkId, WRITER, ChunkHeader.packetsWord(0, 0));
        for (int i = 0; i < 2; i++) {
            Packets.put(abi.smb().buffer(), offset + ChunkHeader.SIZE + i * Packets.FRAME, USE_B, i);
            abi.publishPackets(offset, ChunkHeader.writerAndPackets(WRITER, ChunkHeader.packetsWord(i + 1, 0)));
        }
    }

    /** Scrapes chunk 0 and classifies what it got (see the class comment). */
    static void scrape(SharedMemoryAbi abi, int chunkIdB, II_Result r) {
        ChunkSnapshot snapshot = SNAPSHOT.get();
        switch (snapshot.take(abi, 0, 0)) {
            case NOTHING:
                r.r1 = 0;
                return;
            case TORN:
                r.r1 = 1;
                return;
            default:
                r.r1 = 2;
        }
        int count = ChunkHeader.packetCount(snapshot.packetsWord());
        ByteBuffer payload = snapshot.payload();
        boolean writer = snapshot.writerId() == WRITER && ChunkHeader.flags(snapshot.packetsWord()) == 0;
        if (writer && snapshot.chunkId() == CHUNK_ID_A && count == 2 && Packets.intact(payload, 0, USE_A, 2)) {
            r.r2 = 1;
        } else if (writer && snapshot.chunkId() == chunkIdB && Packets.intact(payload, 0, USE_B, count)) {
            r.r2 = 2;
        } else {
            r.r2 = -1;
        }
    }

    /** The usual reuse: the same writer takes the chunk again for its next chunk id. */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Nothing to take: moved out, header cleared, or no packet yet.")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "A copy torn by the free, discarded.")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "Use A's header with use A's packets.")
    @Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "Use B's header with the packets it counts.")
    @Outcome(expect = FORBIDDEN, desc = "A header of one use with bytes of another.")
    @State
    public static class NextChunkOfTheSameWriter {
        private final SharedMemoryAbi abi = completeChunkOfUseA();

        @Actor
        public void scraper(II_Result r) {
            scrape(abi, CHUNK_ID_A + 1, r);
        }

        @Actor
        public void serviceThenNextWriter() {
            writeUseB(abi, moveOutAndReacquire(abi), CHUNK_ID_A + 1);
        }
    }

    /**
     * The ABA case: the next use's final header equals use A's in every field, so only the free (the
     * generation) tells the copies apart; whichever use a taken copy shows, its bytes must be that use's.
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Nothing to take: moved out, header cleared, or no packet yet.")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "A copy torn by the free, discarded.")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "The header with use A's packets.")
    @Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "The header with use B's packets.")
    @Outcome(expect = FORBIDDEN, desc = "Packets of both uses mixed under one header.")
    @State
    public static class IdenticalHeader {
        private final SharedMemoryAbi abi = completeChunkOfUseA();

        @Actor
        public void scraper(II_Result r) {
            scrape(abi, CHUNK_ID_A, r);
        }

        @Actor
        public void serviceThenNextWriter() {
            writeUseB(abi, moveOutAndReacquire(abi), CHUNK_ID_A);
        }
    }

    /**
     * The next writer is caught between taking the chunk and writing its header, its bytes already in:
     * the header the free cleared must not come back as use A's over use B's bytes.
     */
    @JCStressTest
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "Nothing to take: moved out, or header cleared.")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "A copy torn by the free, discarded.")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "Use A's header with use A's packets.")
    @Outcome(expect = FORBIDDEN, desc = "Use A's header over the next writer's bytes.")
    @State
    public static class NextWriterBeforeItsHeader {
        private final SharedMemoryAbi abi = completeChunkOfUseA();

        @Actor
        public void scraper(II_Result r) {
            scrape(abi, -1, r);
        }

        @Actor
        public void serviceThenNextWriter() {
            int offset = moveOutAndReacquire(abi);
            for (int i = 0; i < 2; i++) {
                Packets.put(abi.smb().buffer(), offset + ChunkHeader.SIZE + i * Packets.FRAME, USE_B, i);
            }
        }
    }
}
