package io.jtrace.agent.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class OsThreadNamesTest {
    @Test
    void nativeNamesAreTheFirst15BytesOfUtf8() {
        assertEquals("short", OsThreadNames.nativeName("short"));
        assertEquals("pool-1-thread-1", OsThreadNames.nativeName("pool-1-thread-12"));
        String cut = OsThreadNames.nativeName("ünïcödé-näme-long");
        assertEquals(15, cut.length(), "15 bytes, one char each in ISO-8859-1");
        assertEquals(new String("ünïcödé-näme-long".getBytes(StandardCharsets.UTF_8), 0, 15, StandardCharsets.ISO_8859_1), cut);
    }

    @Test
    void aThreadIsFoundByItsNativeNameFromTheSecondLookOnAndTwinsAreAmbiguous() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        long[] uniqueTid = new long[1];
        CountDownLatch started = new CountDownLatch(3);
        for (String name : List.of("osnames-unique", "osnames-twin", "osnames-twin")) {
            Thread t = new Thread(() -> {
                if (Thread.currentThread().getName().equals("osnames-unique")) {
                    uniqueTid[0] = ownTid();
                }
                started.countDown();
                try {
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, name);
            t.start();
            threads.add(t);
        }
        started.await();
        OsThreadNames names = new OsThreadNames();
        try {
            Map<String, OsThreadNames.Task> first = names.unplacedByName(Set.of(), 7);
            assertNull(first.get("osnames-unique"), "a thread first seen is not named yet: it may still carry its creator's name");
            Map<String, OsThreadNames.Task> second = names.unplacedByName(Set.of(), 8);
            assertEquals(new OsThreadNames.Task(uniqueTid[0], 7), second.get("osnames-unique"), "its tid, first listed in sample 7");
            assertEquals(-1L, second.get("osnames-twin").tid(), "two threads, one name: ambiguous");
            assertFalse(names.unplacedByName(Set.of(uniqueTid[0]), 9).containsKey("osnames-unique"), "a placed tid is not offered");
        } finally {
            done.countDown();
            for (Thread t : threads) {
                t.join();
            }
        }
    }

    @Test
    void aNameReadBeforeTheThreadNamedItselfIsReadAgainWhileTheThreadIsYoungThenKept() throws Exception {
        CountDownLatch renameEarly = new CountDownLatch(1);
        CountDownLatch renamedEarly = new CountDownLatch(1);
        CountDownLatch renameLate = new CountDownLatch(1);
        CountDownLatch renamedLate = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        long[] tid = new long[1];
        CountDownLatch started = new CountDownLatch(1);
        // As a new OS thread that has not run yet still carries its creator's name, this one carries
        // "osnames-creator" until it names itself (Thread.setName on the current thread renames the OS thread).
        Thread t = new Thread(() -> {
            tid[0] = ownTid();
            started.countDown();
            try {
                renameEarly.await();
                Thread.currentThread().setName("osnames-self");
                renamedEarly.countDown();
                renameLate.await();
                Thread.currentThread().setName("osnames-later");
                renamedLate.countDown();
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "osnames-creator");
        t.start();
        started.await();
        OsThreadNames names = new OsThreadNames();
        try {
            names.unplacedByName(Set.of(), 1);
            assertEquals(tid[0], names.unplacedByName(Set.of(), 2).get("osnames-creator").tid(), "the name it carries now");
            renameEarly.countDown();
            renamedEarly.await();
            Map<String, OsThreadNames.Task> young = names.unplacedByName(Set.of(), 3);
            assertEquals(new OsThreadNames.Task(tid[0], 1), young.get("osnames-self"), "read again: it is young");
            assertNull(young.get("osnames-creator"));
            renameLate.countDown();
            renamedLate.await();
            Map<String, OsThreadNames.Task> old = names.unplacedByName(Set.of(), 2 + OsThreadNames.YOUNG_SAMPLES);
            assertEquals(tid[0], old.get("osnames-self").tid(), "past its young samples its name is kept");
        } finally {
            done.countDown();
            t.join();
        }
    }

    private static long ownTid() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
            return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
