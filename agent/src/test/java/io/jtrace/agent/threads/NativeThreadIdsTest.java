package io.jtrace.agent.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class NativeThreadIdsTest {
    @Test
    void readsJdk17HexNidsAndJdk21DecimalNidsAndSkipsVmThreads() {
        String dump = String.join("\n",
                "2026-11-23 12:00:00",
                "Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6 mixed mode, sharing):",
                "",
                "\"main\" #1 prio=5 os_prio=0 cpu=278.76ms elapsed=0.88s tid=0x00007f06f0017ea0 nid=0x5139 waiting on condition  [0x00007f06f5ffe000]",
                "   java.lang.Thread.State: TIMED_WAITING (sleeping)",
                "\"a \\\"quoted\\\" name\" #13 daemon prio=5 os_prio=0 cpu=0.09ms elapsed=0.5s tid=0x00007f06f01257f0 nid=0x514c runnable",
                "\"pool-1-thread-1\" #22 [21833] daemon prio=5 os_prio=0 cpu=0.10ms elapsed=1.12s tid=0x00007fa1080df360 nid=21833 waiting",
                "\"VM Thread\" os_prio=0 cpu=1.2ms elapsed=1.0s tid=0x00007f06f0090000 nid=0x5140 runnable",
                "\"GC Thread#0\" os_prio=0 cpu=0.5ms elapsed=1.0s tid=0x00007f06f0030000 nid=0x513a runnable");
        Map<Long, NativeThreadIds.Placement> placements = NativeThreadIds.parse(dump, 10_000_000_000L);

        assertEquals(3, placements.size(), placements::toString);
        assertEquals(new NativeThreadIds.Placement(0x5139, 10_000_000_000L - 880_000_000L), placements.get(1L));
        assertEquals(0x514c, placements.get(13L).tid());
        assertEquals(new NativeThreadIds.Placement(21833, 10_000_000_000L - 1_120_000_000L), placements.get(22L));
    }

    @Test
    void placesALiveThreadAtTheOsIdItReadsItself() throws Exception {
        long[] own = new long[1];
        CountDownLatch read = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
                own[0] = Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
                read.countDown();
                done.await();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "placed-thread");
        t.start();
        read.await();
        Map<Long, NativeThreadIds.Placement> placements = null;
        long before = 0;
        for (int i = 0; i < 500 && placements == null; i++) {
            before = System.nanoTime();
            placements = NativeThreadIds.dump(); // null while the platform MBean server starts
            if (placements == null) {
                Thread.sleep(10);
            }
        }
        done.countDown();
        t.join();

        NativeThreadIds.Placement p = placements.get(t.getId());
        assertEquals(own[0], p.tid());
        // The dump gives a thread's age to 10 ms (elapsed=0.00s), measured from the dump's own clock read.
        assertTrue(p.startNanos() <= System.nanoTime(), "started before now");
        assertTrue(p.startNanos() <= before + 20_000_000L, "started before the dump, to its 10 ms resolution");
        long uptimeNanos = ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L;
        assertTrue(p.startNanos() >= before - uptimeNanos - 20_000_000L, "not before the JVM started");
    }
}
