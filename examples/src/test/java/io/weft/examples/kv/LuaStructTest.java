package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static io.weft.examples.kv.ScriptsTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Redis's {@code struct} library in scripts ({@link LuaStruct}): each script answers what redis-server 7.0.15 answered
 * on x86-64 (packed bytes in hex; errors by their text, without Redis's "user_script:1: " place, which LuaJ gives only
 * at times). P packs, V shows what the expression gives. Before, {@code struct} was an unknown global, and a log's
 * batch from before it still finds none.
 */
@Timeout(60)
class LuaStructTest
{
    @Test
    void structAnswersAsRedis()
    {
        final String cases = """
            P|struct.pack('>I2', 258)|0102
            P|struct.pack('<i', -2)|feffffff
            P|struct.pack('bBhHlLT', -1, 255, -2, 65535, -3, 4, 5)|fffffefffffffdffffffffffffff04000000000000000500000000000000
            P|struct.pack('>bBhHlLT', -1, 255, -2, 65535, -3, 4, 5)|fffffffefffffffffffffffffffd00000000000000040000000000000005
            P|struct.pack('s', 'ab')|616200
            P|struct.pack('s', 'a\\0b')|61006200
            P|struct.pack('c0', 'abc')|616263
            P|struct.pack('>c2', 'abc')|6162
            P|struct.pack('c1c1', 'ab', 'cd')|6163
            P|struct.pack('c', 5)|35
            P|struct.pack('s', 7)|3700
            P|struct.pack('c0', 12.5)|31322e35
            P|struct.pack('s', 1e100)|31652b31303000
            P|struct.pack('x')|00
            P|struct.pack('x>h', 1)|000001
            P|struct.pack('', 1)|
            P|struct.pack('b', 1, 2)|01
            P|struct.pack('i0', 1)|
            P|struct.pack('i17', 1)|0100000000000000000000000000000000
            P|struct.pack('>i9', -1)|00ffffffffffffffff
            P|struct.pack('<I3', -1)|ffffff
            P|struct.pack('>I3', 2^24 + 5)|000005
            P|struct.pack('B', 256)|00
            P|struct.pack('b', 300)|2c
            P|struct.pack('h', 70000)|7011
            P|struct.pack('i', 2.9)|02000000
            P|struct.pack('i', -2.9)|feffffff
            P|struct.pack('h', -0.5)|0000
            P|struct.pack('I', 2^40)|00000000
            P|struct.pack('>i', 2^31)|80000000
            P|struct.pack('<I8', 2^64)|0000000000000000
            P|struct.pack('<I8', 2^63)|0000000000000080
            P|struct.pack('<I8', 2^63 + 4096)|0010000000000080
            P|struct.pack('>I8', -1)|ffffffffffffffff
            P|struct.pack('<i8', -2^63)|0000000000000080
            P|struct.pack('<i8', -2^64)|0000000000000080
            P|struct.pack('<i8', 0/0)|0000000000000080
            P|struct.pack('<i8', 1/0)|0000000000000000
            P|struct.pack('<i8', -1/0)|0000000000000080
            P|struct.pack('<d', 1.5)|000000000000f83f
            P|struct.pack('>d', -2.5)|c004000000000000
            P|struct.pack('<d', -1/0)|000000000000f0ff
            P|struct.pack('<f', 1.5)|0000c03f
            P|struct.pack('<d', 0/0)|000000000000f8ff
            P|struct.pack('<f', 0/0)|0000c0ff
            P|struct.pack('<f', 1e40)|0000807f
            P|struct.pack('>f', 0.1)|3dcccccd
            P|struct.pack('<i', '12')|0c000000
            P|struct.pack('<i', '0x10')|10000000
            P|struct.pack('<i', ' 7 ')|07000000
            P|struct.pack('<i', '1e2')|64000000
            P|struct.pack('<i', 'inf')|00000000
            P|struct.pack('b', 'nan')|00
            P|struct.pack('!4 b i', 1, 2)|0100000002000000
            P|struct.pack('!8 b d', 1, 2)|01000000000000000000000000000040
            P|struct.pack('! b l', 1, 2)|01000000000000000200000000000000
            P|struct.pack('!2 b l', 1, 2)|01000200000000000000
            P|struct.pack('!1 b d', 1, 2)|010000000000000040
            P|struct.pack('!16 b d', 1, 2)|01000000000000000000000000000040
            P|struct.pack('! b i2 b i8', 1, 2, 3, 4)|01000200030000000400000000000000
            P|struct.pack('!8 b c3 h', 1, 'abc', 2)|016162630200
            P|struct.pack('!8 b s h', 1, 'abc', 2)|0161626300000200
            P|struct.pack('! b i3', 1, 2)|010000020000
            P|struct.pack('! b i5 b i7', 1, 2, 3, 4)|01000000000200000000030000000004000000000000
            P|struct.pack('! b i12', 1, 2)|0100000000000000020000000000000000000000
            P|struct.pack('<>!4 b i', 1, 2)|0100000000000002
            V|struct.pack('c5', 'ab')|-ERR bad argument #3 to 'pack' (string too short)
            V|struct.pack('c3c', 'ab', 'd')|-ERR bad argument #3 to 'pack' (string too short)
            V|struct.pack('q', 1)|-ERR bad argument #1 to 'pack' (invalid format option 'q')
            V|struct.pack(5, 1)|-ERR bad argument #1 to 'pack' (invalid format option '5')
            V|struct.pack('%', 1)|-ERR bad argument #1 to 'pack' (invalid format option '%')
            V|struct.pack('!3i', 1)|-ERR alignment 3 is not a power of 2
            V|struct.pack('!0 b i', 1, 2)|-ERR alignment 0 is not a power of 2
            V|struct.pack('i33', 1)|-ERR integral size 33 is larger than limit of 32
            V|struct.pack('i99999999999', 1)|-ERR integral size overflow
            V|struct.pack('i', 'x')|-ERR bad argument #2 to 'pack' (number expected, got string)
            V|struct.pack('i', '')|-ERR bad argument #2 to 'pack' (number expected, got string)
            V|struct.pack('b', '1e1x')|-ERR bad argument #2 to 'pack' (number expected, got string)
            V|struct.pack('i')|-ERR bad argument #2 to 'pack' (number expected, got nil)
            V|struct.pack('ii', 1)|-ERR bad argument #3 to 'pack' (number expected, got nil)
            V|struct.pack('ic0', 1)|-ERR bad argument #3 to 'pack' (string expected, got nil)
            V|struct.pack('i', nil, nil)|-ERR bad argument #2 to 'pack' (number expected, got nil)
            V|struct.pack('i', true)|-ERR bad argument #2 to 'pack' (number expected, got boolean)
            V|struct.pack('s', {})|-ERR bad argument #2 to 'pack' (string expected, got table)
            V|struct.pack('c', nil)|-ERR bad argument #2 to 'pack' (string expected, got nil)
            V|struct.pack()|-ERR bad argument #1 to 'pack' (string expected, got no value)
            V|struct.size('>i4d')|:12
            V|struct.size('!8 b d')|:16
            V|struct.size('!8 b i3')|:6
            V|struct.size('! b i5 b i7')|:22
            V|struct.size('! b i12')|:20
            V|struct.size('!2 b h')|:4
            V|struct.size('i32 i')|:36
            V|struct.size('i 5')|:4
            V|struct.size('xq i')|:5
            V|struct.size('q')|:0
            V|struct.size(5)|:0
            V|struct.size('!')|:0
            V|struct.size('c2147483647 c2147483647')|:4294967294
            V|struct.size('s')|-ERR bad argument #1 to 'size' (option 's' has no fixed size)
            V|struct.size('c0')|-ERR bad argument #1 to 'size' (option 'c0' has no fixed size)
            V|struct.size('=i')|-ERR bad argument #1 to 'size' (invalid format option '=')
            V|struct.size('!4294967296')|-ERR integral size overflow
            V|struct.size('c99999999999')|-ERR integral size overflow
            V|struct.size()|-ERR bad argument #1 to 'size' (string expected, got no value)
            V|{struct.unpack('>I2', '\\1\\2')}|[:258, :3]
            V|{struct.unpack('>i2', '\\255\\254')}|[:-2, :3]
            V|{struct.unpack('<i3', '\\254\\255\\255')}|[:-2, :4]
            V|{struct.unpack('<I3', '\\254\\255\\255')}|[:16777214, :4]
            V|{struct.unpack('<i1', '\\128')}|[:-128, :2]
            V|{struct.unpack('bBhHlLT', struct.pack('bBhHlLT', -1, 255, -2, 65535, -3, 4, 5))}|[:-1, :255, :-2, :65535, :-3, :4, :5, :31]
            V|{struct.unpack('>I2', '\\1\\2\\3\\4', 3)}|[:772, :5]
            V|{struct.unpack('>I2', '\\1\\2\\3', 2.7)}|[:515, :4]
            V|{struct.unpack('<I10', '\\1\\2\\3\\4\\5\\6\\7\\8\\9\\10')}|[:578437695752307200, :11]
            V|{struct.unpack('>I10', '\\1\\2\\3\\4\\5\\6\\7\\8\\9\\10')}|[:217304205466536192, :11]
            V|{struct.unpack('>i10', '\\255\\2\\3\\4\\5\\6\\7\\8\\9\\255')}|[:-30209, :11]
            V|{struct.unpack('<i16', '\\255\\255\\255\\255\\255\\255\\255\\255\\0\\0\\0\\0\\0\\0\\0\\0')}|[:-1, :17]
            V|{struct.unpack('<i9', '\\1\\0\\0\\0\\0\\0\\0\\0\\1')}|[:1, :10]
            V|{struct.unpack('<i0', '')}|[:0, :1]
            V|{struct.unpack('<I0 b', '\\5')}|[:0, :5, :2]
            V|{struct.unpack('<I8', '\\255\\255\\255\\255\\255\\255\\255\\255')}|[:-9223372036854775808, :9]
            V|tostring(struct.unpack('<I8', '\\255\\255\\255\\255\\255\\255\\255\\255'))|1.844674407371e+19
            V|tostring(struct.unpack('<I8', '\\1\\12\\0\\0\\0\\0\\0\\128') - 2^63)|4096
            V|tostring(struct.unpack('<l', '\\255\\255\\255\\255\\255\\255\\255\\127'))|9.2233720368548e+18
            V|{struct.unpack('!8 b d', struct.pack('!8 b d', 1, 2))}|[:1, :2, :17]
            V|{struct.unpack('! b i5', struct.pack('! b i5', 1, 2))}|[:1, :2, :11]
            V|{struct.unpack('!4 b i', '\\1\\0\\0\\0\\2\\0\\0\\0')}|[:1, :2, :9]
            V|tostring(struct.unpack('>d', struct.pack('>d', 0.1)))|0.1
            V|tostring(struct.unpack('<f', struct.pack('<f', 0.1)))|0.10000000149012
            V|tostring(struct.unpack('d', '\\0\\0\\0\\0\\0\\0\\240\\127'))|inf
            V|{struct.unpack('f', '\\0\\0\\192\\127')}|[:-9223372036854775808, :5]
            V|{struct.unpack('s s', 'ab\\0c\\0')}|[ab, c, :6]
            V|{struct.unpack('s', 'a\\0b')}|[a, :3]
            V|{struct.unpack('Bc0', '\\3abcdef')}|[abc, :5]
            V|{struct.unpack('c1 c0', '2ab')}|[ab, :4]
            V|{struct.unpack('c3 c0', '1.9ab')}|[a, :5]
            V|{struct.unpack('B x c0', '\\2\\0abc')}|[ab, :5]
            V|{struct.unpack('B c0 B', '\\1a\\5')}|[a, :5, :4]
            V|{struct.unpack('b c0', '\\0', 1)}|[, :2]
            V|{struct.unpack('', 'abc')}|[:1]
            V|{struct.unpack('', 'abc', 9)}|[:9]
            V|{struct.unpack('', 'abc', -1)}|[:-1]
            V|{struct.unpack(' ', 'abc', 4)}|[:4]
            V|{struct.unpack('x', 'abc', 3)}|[:4]
            V|{struct.unpack('c1 c0', '-1ab')}|-ERR format 'c0' needs a previous size
            V|{struct.unpack('c0', 'abc')}|-ERR format 'c0' needs a previous size
            V|{struct.unpack('b c0', '\\255a')}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack('Bc0', '\\9abc')}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack('s', 'abc')}|-ERR unfinished string in data
            V|{struct.unpack('s', 'abc', 4)}|-ERR unfinished string in data
            V|{struct.unpack('>I2', '\\1', 1)}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack('>I2', '\\1\\2', 0)}|-ERR bad argument #3 to 'unpack' (offset must be 1 or greater)
            V|{struct.unpack('>I2', '\\1\\2', -1)}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack('>I2', '\\1\\2\\3', 'x')}|-ERR bad argument #3 to 'unpack' (number expected, got string)
            V|{struct.unpack('x', 'abc', 4)}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack(' ', 'abc', 5)}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack('>', 'abc', 9)}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack('!4 b i', '\\1\\0\\0\\0\\2\\0\\0')}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack('>h', 5)}|-ERR bad argument #2 to 'unpack' (data string too short)
            V|{struct.unpack(5, '5')}|-ERR bad argument #1 to 'unpack' (invalid format option '5')
            V|{struct.unpack('>h')}|-ERR bad argument #2 to 'unpack' (string expected, got no value)
            V|struct.unpack()|-ERR bad argument #1 to 'unpack' (string expected, got no value)
            V|select('#', struct.unpack(string.rep('b', 7997), string.rep('\\1', 7997)))|:7998
            V|select('#', struct.unpack(string.rep('b', 7998), string.rep('\\1', 7998)))|-ERR stack overflow (too many results)
            V|select('#', struct.unpack(string.rep('b', 7996), string.rep('\\1', 7996), 1))|:7997
            V|select('#', struct.unpack(string.rep('b', 7997), string.rep('\\1', 7997), 1))|-ERR stack overflow (too many results)
            V|select('#', struct.unpack(string.rep('b', 7997) .. ' ', string.rep('\\1', 7997)))|-ERR stack overflow (too many results)
            V|select(2, pcall(function() struct.x = 1 end))|user_script:1: Attempt to modify a readonly table
            V|type(struct.pack)|function
            """;
        assertEquals(List.of(), RedisAnswers.unlike(cases));
    }

    @Test
    void aBatchFromBeforeStructFindsNone()
    {
        final KvStore older = ScriptsTest.before(LuaStruct.SINCE);
        RedisAnswers.assertUnknownGlobal(older, "struct", "return struct.size('i')");
        assertEquals(":4", text(RedisAnswers.eval(new KvStore(), "return struct.size('i')")));
    }
}
