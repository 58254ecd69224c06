package io.jtrace.shm.proto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.testing.ChunkFrames;
import io.jtrace.shm.testing.TestPackets;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A packet written through a {@link SpaceProvider} that ends the fragment at arbitrary points and
 * continues in a separate buffer, as TraceWriter does between chunks: gluing the fragments and applying
 * the size patches must give exactly the bytes of an unfragmented write.
 */
class ProtoWriterFragmentTest {
    private static ByteBuffer garbage(Random r, int capacity) {
        byte[] bytes = new byte[capacity];
        r.nextBytes(bytes); // unwritten bytes, reserved size fields included, are garbage, as in a recycled chunk
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A fragment: its buffer and where its frame (4-byte size) is. */
    record Fragment(ByteBuffer buf, int framePos) {}

    /** A size patch asked for: which fragment, where in its buffer, for which level, what size. */
    record PatchAt(int fragment, int offset, int level, int size) {}

    /**
     * Continues the packet in a new garbage-filled buffer whenever the writer runs short, at a random
     * frame position, with {@code room.applyAsInt(needed)} bytes after the frame (at least what was
     * needed). Records each fragment and each patch, checking the writer's bookkeeping on the way.
     */
    static final class FragmentingProvider implements SpaceProvider {
        final Random r;
        final IntUnaryOperator room;
        final List<Fragment> fragments = new ArrayList<>();
        final List<PatchAt> patches = new ArrayList<>();
        final List<Integer> asked = new ArrayList<>();

        FragmentingProvider(Random r, IntUnaryOperator room) {
            this.r = r;
            this.room = room;
        }

        /** Points {@code w} at the first fragment and opens the packet's frame. */
        void begin(ProtoWriter w, int firstRoom) {
            int framePos = r.nextInt(16);
            ByteBuffer buf = garbage(r, framePos + 4 + firstRoom + r.nextInt(8));
            fragments.add(new Fragment(buf, framePos));
            w.reset(buf, framePos, framePos + 4 + firstRoom);
            w.beginFrame();
            assertEquals(0, w.fragment());
        }

        @Override
        public void makeRoom(ProtoWriter w, int needed) {
            asked.add(needed);
            assertTrue(w.depth() > 0, "makeRoom inside a packet only");
            assertTrue(w.limit() - w.position() < needed, "asked for " + needed + " with " + (w.limit() - w.position()) + " left");
            int stream = w.streamPosition();
            int fragment = w.fragment();
            int depth = w.depth();
            int n = Math.max(needed, room.applyAsInt(needed));
            int framePos = r.nextInt(16);
            ByteBuffer buf = garbage(r, framePos + 4 + n + r.nextInt(8));
            w.continueIn(buf, framePos, framePos + 4 + n);
            fragments.add(new Fragment(buf, framePos));
            assertEquals(stream, w.streamPosition(), "stream position continuous across fragments");
            assertEquals(fragment + 1, w.fragment());
            assertEquals(depth, w.depth(), "open messages stay open");
            assertEquals(framePos, w.sizeFieldOffset(0), "the new fragment's frame");
            assertEquals(framePos + 4, w.position());
            assertSame(buf, w.buffer());
            assertTrue(w.limit() - w.position() >= needed);
        }

        @Override
        public void patchSize(ProtoWriter w, int level, int size) {
            // endNested has closed the level already: it is the depth now.
            assertEquals(level, w.depth(), "patch for the message just closed");
            assertTrue(level >= 1, "the frame is never patched");
            assertTrue(w.fragmentOf(level) < w.fragment(), "size field in an earlier fragment");
            patches.add(new PatchAt(w.fragmentOf(level), w.sizeFieldOffset(level), level, size));
        }

        /** Applies the patches to the fragments' buffers and glues the fragments' contents. */
        byte[] reassemble() {
            for (PatchAt p : patches) {
                fragments.get(p.fragment()).buf().putInt(p.offset(), WireFormat.redundantVarint(p.size()));
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (Fragment f : fragments) {
                int size = WireFormat.decodeRedundantVarint(f.buf().getInt(f.framePos()));
                assertTrue(size >= 0 && f.framePos() + 4 + size <= f.buf().capacity(), "fragment frame size " + size);
                out.write(f.buf().array(), f.framePos() + 4, size);
            }
            return out.toByteArray();
        }
    }

    /** Writes {@code body} inside a frame through {@code provider}; returns the glued, patched content. */
    private static byte[] writeFragmented(FragmentingProvider provider, int firstRoom, Consumer<ProtoWriter> body) {
        ProtoWriter w = new ProtoWriter(provider);
        provider.begin(w, firstRoom);
        int start = w.streamPosition();
        body.accept(w);
        assertEquals(1, w.depth());
        int lastSize = w.endNested();
        assertEquals(0, w.depth());
        Fragment last = provider.fragments.get(provider.fragments.size() - 1);
        assertEquals(lastSize, WireFormat.decodeRedundantVarint(last.buf().getInt(last.framePos())),
                "the last fragment's frame holds the size endNested returned");
        byte[] content = provider.reassemble();
        assertEquals(content.length, w.streamPosition() - start, "stream position counts the content of every fragment");
        return content;
    }

    @Test
    void randomPacketsFragmentedAtRandomPointsReassembleToTheUnfragmentedBytes() {
        Random r = new Random(20240602);
        int fragments = 0;
        int patches = 0;
        int deepPatches = 0;
        for (int i = 0; i < 3000; i++) {
            TracePacket expected = TestPackets.randomPacket(r, r.nextLong(), 1 + r.nextInt(300), 2000);
            int maxExtra = switch (r.nextInt(4)) {
                case 0 -> 0; // each fragment just what was asked: strings go one character at a time
                case 1 -> 16;
                case 2 -> 200;
                default -> 3000;
            };
            FragmentingProvider provider = new FragmentingProvider(r, needed -> needed + r.nextInt(maxExtra + 1));
            byte[] content = writeFragmented(provider, r.nextInt(maxExtra + 1), w -> TestPackets.writePacket(w, expected));
            assertArrayEquals(TestPackets.encode(expected), content, "packet " + i + " in " + provider.fragments.size() + " fragments");
            assertEquals(expected, ChunkFrames.parse(content), "packet " + i);
            for (int needed : provider.asked) {
                assertTrue(needed > 0 && needed <= 15, "asked for " + needed + " bytes: never more than a tag and a varint");
            }
            fragments += provider.fragments.size();
            patches += provider.patches.size();
            deepPatches += (int) provider.patches.stream().filter(p -> p.level() >= 3).count();
        }
        assertTrue(fragments > 30_000 && patches > 3000 && deepPatches > 300,
                "really fragmented: " + fragments + " fragments, " + patches + " patches, " + deepPatches + " deep");
    }

    /** Fragments that hold exactly {@code room} bytes each after the first, which holds {@code firstRoom}. */
    private static FragmentingProvider fixedRoom(Random r, int room) {
        return new FragmentingProvider(r, needed -> room);
    }

    private static TracePacket named(String name) {
        return TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().setName(name)).build();
    }

    @Test
    void stringsLongerThanTheRoomLeftAreWrittenInPiecesWithNonBmpCodePointsStraddlingEveryBoundary() {
        Random r = new Random(21);
        String[] units = {"a", "\u00e9", "\u20ac", "\uD83D\uDE00", "\uD83D\uDE00\uD83D\uDE00x", "\u20ac\uD83D\uDE00"};
        int cases = 0;
        for (String unit : units) {
            for (int lead = 0; lead < 8; lead++) {
                String s = "a".repeat(lead) + unit.repeat(40);
                byte[] reference = TestPackets.encode(w -> {
                    w.beginNested(11);
                    w.string(23, s);
                    w.endNested();
                }, 4096);
                for (int room = 4; room <= 13; room++) {
                    for (int firstRoom = 12; firstRoom <= 16; firstRoom++) {
                        FragmentingProvider provider = fixedRoom(r, room);
                        byte[] content = writeFragmented(provider, firstRoom, w -> {
                            w.beginNested(11);
                            w.string(23, s);
                            w.endNested();
                        });
                        assertArrayEquals(reference, content, "lead " + lead + ", room " + room + ", unit " + unit);
                        assertEquals(named(s), ChunkFrames.parse(content));
                        assertTrue(provider.fragments.size() > 2, "the string spans fragments");
                        cases++;
                    }
                }
            }
        }
        assertEquals(units.length * 8 * 10 * 5, cases);
    }

    @Test
    void unpairedSurrogatesInAStringWrittenInPiecesStillBecomeQuestionMarks() {
        String s = ("a\uD83Db\uDE00\uD83D\uDE00\uDBFF" + "\uD83D").repeat(20) + "\uD83D";
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        for (int room = 4; room <= 9; room++) {
            byte[] content = writeFragmented(fixedRoom(new Random(room), room), 6, w -> w.string(36, s));
            TracePacket parsed = ChunkFrames.parse(content);
            assertEquals(ByteString.copyFrom(utf8), parsed.getSynchronizationMarker(), "room " + room);
        }
    }

    @Test
    void bytesLongerThanTheRoomLeftAreWrittenInPiecesFillingEveryFragment() {
        Random r = new Random(22);
        for (int length : new int[] {1, 7, 100, 4096, 70_000}) {
            byte[] data = new byte[length];
            r.nextBytes(data);
            for (int room : new int[] {1, 3, 64, 1000}) {
                FragmentingProvider provider = fixedRoom(r, room);
                byte[] content = writeFragmented(provider, 10, w -> w.bytes(36, data, 0, data.length));
                TracePacket parsed = ChunkFrames.parse(content);
                assertEquals(ByteString.copyFrom(data), parsed.getSynchronizationMarker(), length + " bytes, room " + room);
                // Raw bytes need no alignment: every fragment but the last is full.
                for (int f = 1; f < provider.fragments.size() - 1; f++) {
                    Fragment frag = provider.fragments.get(f);
                    int size = WireFormat.decodeRedundantVarint(frag.buf().getInt(frag.framePos()));
                    assertEquals(Math.max(room, 1), size, "fragment " + f + " is full");
                }
            }
        }
    }

    @Test
    void streamPositionRunsOnAcrossFragmentsAsIfThePacketWereInOneBuffer() {
        Random r = new Random(23);
        for (int i = 0; i < 300; i++) {
            TracePacket p = TestPackets.randomPacket(r, r.nextLong(), 200, 500);
            ByteBuffer big = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
            ProtoWriter reference = ProtoWriterTest.writerOver(big);
            FragmentingProvider provider = new FragmentingProvider(r, needed -> needed + r.nextInt(24));
            ProtoWriter w = new ProtoWriter(provider);
            provider.begin(w, 8);
            int start = w.streamPosition();
            // Field by field, the fragmented writer's stream position moves exactly like the reference's.
            List<Consumer<ProtoWriter>> steps = List.of(
                    x -> x.varint(8, p.getTimestamp()),
                    x -> x.beginNested(11),
                    x -> x.string(23, p.getTrackEvent().getName()),
                    x -> x.beginNested(4),
                    x -> x.fixed64(5, 12345L),
                    x -> x.string(10, p.getTrackEvent().getName()),
                    x -> x.endNested(),
                    x -> x.bytes(36, new byte[300], 0, 300),
                    x -> x.endNested());
            for (Consumer<ProtoWriter> step : steps) {
                step.accept(reference);
                step.accept(w);
                assertEquals(reference.position(), w.streamPosition() - start);
            }
        }
    }

    @Test
    void nestedSizeWhoseFieldIsInAnEarlierFragmentIsReportedThroughPatchSizeWithLevelAndSize() {
        Random r = new Random(24);
        FragmentingProvider provider = fixedRoom(r, 40);
        ProtoWriter w = new ProtoWriter(provider);
        provider.begin(w, 20);
        int frame = provider.fragments.get(0).framePos();
        w.beginNested(11);            // level 1: tag at frame+4, size field at frame+5
        w.beginNested(4);             // level 2: tag at frame+9, size field at frame+10
        w.string(10, "k");            // 3 bytes: 13 of 20 used
        w.string(6, "v".repeat(100)); // runs into later fragments
        assertTrue(w.fragment() > 0);
        w.beginNested(11);            // level 3, opened in a later fragment...
        int fragmentOfValue = w.fragment();
        w.string(10, "in");
        int inPlace = w.endNested();  // ...and closed in it: written in place, no patch
        assertEquals(fragmentOfValue, w.fragment(), "level 3 stayed within one fragment");
        assertEquals(List.of(), provider.patches);
        int size2 = w.endNested();
        int size1 = w.endNested();
        int valueField = 1 + 1 + 100;
        assertEquals(3 + valueField + 1 + 4 + inPlace, size2);
        assertEquals(1 + 4 + size2, size1);
        assertEquals(List.of(new PatchAt(0, frame + 10, 2, size2), new PatchAt(0, frame + 5, 1, size1)), provider.patches,
                "innermost first, each with its level, its field's fragment and offset, and its size");
        w.endNested();
        TracePacket expected = TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().addDebugAnnotations(
                DebugAnnotation.newBuilder().setName("k").setStringValue("v".repeat(100))
                        .addDictEntries(DebugAnnotation.newBuilder().setName("in")))).build();
        assertEquals(expected, ChunkFrames.parse(provider.reassemble()));
    }

    @Test
    void nestedMessageOpenedAndClosedWithinTheFirstFragmentIsNeverPatched() {
        FragmentingProvider provider = fixedRoom(new Random(25), 30);
        ProtoWriter w = new ProtoWriter(provider);
        provider.begin(w, 40);
        w.beginNested(11);
        w.string(23, "short");
        w.endNested();
        w.bytes(36, new byte[200], 0, 200); // now fragment
        w.endNested();
        assertTrue(provider.fragments.size() > 1);
        assertEquals(List.of(), provider.patches);
    }

    @Test
    void theFrameOfEveryFragmentHoldsThatFragmentsSize() {
        FragmentingProvider provider = fixedRoom(new Random(26), 10);
        ProtoWriter w = new ProtoWriter(provider);
        provider.begin(w, 10);
        w.bytes(36, new byte[45], 0, 45); // tag 2 + len 1 + 45 bytes = 48: 10 + 10 + 10 + 10 + 8
        w.endNested();
        List<Integer> sizes = new ArrayList<>();
        for (Fragment f : provider.fragments) {
            sizes.add(WireFormat.decodeRedundantVarint(f.buf().getInt(f.framePos())));
        }
        assertEquals(List.of(10, 10, 10, 10, 8), sizes);
    }

    @Test
    void continueInWithoutAnOpenPacketThrows() {
        ProtoWriter w = new ProtoWriter(ProtoWriterTest.NO_MORE_SPACE);
        ByteBuffer buf = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        w.reset(buf, 0, 64);
        assertThrows(IllegalStateException.class, () -> w.continueIn(buf, 0, 64));
    }

    @Test
    void afterDiscardIntoSizeFieldsLeftInEarlierFragmentsAreNoLongerPatched() {
        List<Integer> patchedLevels = new ArrayList<>();
        ByteBuffer scratch = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        boolean[] discard = {false};
        ByteBuffer second = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        ProtoWriter w = new ProtoWriter(new SpaceProvider() {
            @Override
            public void makeRoom(ProtoWriter writer, int needed) {
                if (discard[0]) {
                    writer.discardInto(scratch);
                } else {
                    writer.continueIn(second, 0, second.capacity());
                    discard[0] = true;
                }
            }

            @Override
            public void patchSize(ProtoWriter writer, int level, int size) {
                patchedLevels.add(level);
            }
        });
        ByteBuffer first = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        w.reset(first, 0, first.capacity());
        w.beginFrame();
        w.beginNested(11);
        w.beginNested(4);
        w.bytes(14, new byte[500], 0, 500); // first → second → scratch
        assertSame(scratch, w.buffer());
        w.endNested();
        w.endNested();
        w.endNested();
        assertEquals(List.of(), patchedLevels, "a discarded packet asks for no patches");
    }
}
