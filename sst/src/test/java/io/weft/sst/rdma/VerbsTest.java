package io.weft.sst.rdma;

import io.weft.sst.TransportException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verbs backend's pieces that run without an RDMA device: discovery (none here, reported cleanly), and the hot
 * path's dispatch through the device context's ops table, driven against a C test double (src/test/c/verbs_double.c)
 * that records the work request it receives and returns completions.
 */
@Timeout(120)
class VerbsTest
{
    @TempDir
    Path dir;

    @Test
    void discoveryReportsNoDevicesCleanly()
    {
        Assumptions.assumeTrue(Verbs.installed(), "skipped: libibverbs1 is not installed");
        final Verbs verbs = Verbs.load();
        final List<String> devices = verbs.devices();
        if (devices.isEmpty())
        {
            final TransportException ex = assertThrows(TransportException.class, verbs::requireDevice);
            assertTrue(ex.getMessage().startsWith("no RDMA devices"), ex.getMessage());
            assertTrue(ex.getMessage().contains("tcp;ofi_rxm"), ex.getMessage());
        }
        else
        {
            assertEquals(devices.getFirst(), verbs.requireDevice(), "a host with RDMA devices: " + devices);
        }
    }

    @Test
    void postSendAndPollCqDispatchThroughTheOpsTable() throws Throwable
    {
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/include/infiniband/verbs.h")),
            "skipped: libibverbs-dev headers missing");
        final Path library = dir.resolve("libverbsdouble.so");
        io.weft.testkit.NativeBuild.gcc(Path.of("src/test/c/verbs_double.c"), library, List.of("-shared", "-fPIC"));
        try (Arena arena = Arena.ofShared())
        {
            final SymbolLookup lib = SymbolLookup.libraryLookup(library, arena);
            final MemorySegment qp = pointer(lib, "double_qp");
            final MemorySegment cq = pointer(lib, "double_cq");
            final Verbs.SendQueue pair = new Verbs.SendQueue(qp);
            final Verbs.CompletionQueue completions = new Verbs.CompletionQueue(cq);

            assertEquals(0, pair.write(41, 0x1000_0000L, 24, 0x77, 0x7f00_0000_1234L, 0x99, true, true));
            assertEquals(1, number(lib, "double_posts"));
            assertEquals(41, number(lib, "double_wr_id"));
            assertEquals(VerbsAbi.WR_RDMA_WRITE, number(lib, "double_opcode"));
            assertEquals(VerbsAbi.SEND_SIGNALED | VerbsAbi.SEND_INLINE, number(lib, "double_send_flags"));
            assertEquals(1, number(lib, "double_num_sge"));
            assertEquals(0x7f00_0000_1234L, number(lib, "double_remote_addr"));
            assertEquals(0x99, number(lib, "double_rkey"));
            assertEquals(0x1000_0000L, number(lib, "double_sge_addr"));
            assertEquals(24, number(lib, "double_sge_length"));
            assertEquals(0x77, number(lib, "double_sge_lkey"));

            // selective signalling: an unsignalled write completes nothing
            assertEquals(0, pair.write(42, 0x2000_0000L, 4096, 0x78, 0x7f00_0000_2000L, 0x9a, false, false));
            assertEquals(42, number(lib, "double_wr_id"));
            assertEquals(0, number(lib, "double_send_flags"));
            assertEquals(0, pair.write(43, 0x3000_0000L, 8, 0x78, 0x7f00_0000_3000L, 0x9a, true, false));

            // the completion request at flush: a zero-length write carries no scatter-gather entry
            assertEquals(0, pair.write(44, 0, 0, 0x78, 0, 0, true, false));
            assertEquals(0, number(lib, "double_num_sge"));
            assertEquals(VerbsAbi.SEND_SIGNALED, number(lib, "double_send_flags"));

            final long[] ids = new long[8];
            final int[] statuses = new int[8];
            assertEquals(3, completions.poll(ids, statuses));
            assertArrayEquals(new long[] {41, 43, 44}, java.util.Arrays.copyOf(ids, 3));
            assertArrayEquals(new int[] {(int)VerbsAbi.WC_SUCCESS, (int)VerbsAbi.WC_SUCCESS, (int)VerbsAbi.WC_SUCCESS},
                java.util.Arrays.copyOf(statuses, 3));
            assertEquals(0, completions.poll(ids, statuses));
        }
    }

    private static MemorySegment pointer(final SymbolLookup lib, final String name) throws Throwable
    {
        final MethodHandle h = Linker.nativeLinker().downcallHandle(lib.find(name).orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS));
        return (MemorySegment)h.invokeExact();
    }

    private static long number(final SymbolLookup lib, final String name) throws Throwable
    {
        final MethodHandle h = Linker.nativeLinker().downcallHandle(lib.find(name).orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG));
        return (long)h.invokeExact();
    }
}
