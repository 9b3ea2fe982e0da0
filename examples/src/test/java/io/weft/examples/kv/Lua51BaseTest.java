package io.weft.examples.kv;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static io.weft.examples.kv.ScriptsTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lua 5.1's functions Redis's scripts have and LuaJ lacks ({@link Lua51Base}): each script answers what redis-server
 * 7.0.15 answered ({@link RedisAnswers}). Before, {@code loadstring} was an unknown global and the others nil, and a
 * log's batch from before still finds them so.
 */
@Timeout(60)
class Lua51BaseTest
{
    @Test
    void loadstringAndTheTableMathAndStringFunctionsAnswerAsRedis()
    {
        final String cases = """
            V|loadstring('return 1 + 1')()|:2
            V|type(loadstring)|function
            V|{loadstring('x = ')}|[]
            V|{loadstring('x = 1 +')}|[]
            V|type(select(2, loadstring('for')))|string
            V|{loadstring('return 1')}|[nil]
            V|select(2, pcall(loadstring('error("boom")')))|[string "error("boom")"]:1: boom
            V|select(2, pcall(loadstring('local x = 1\\nerror("boom")')))|[string "local x = 1..."]:2: boom
            V|select(2, pcall(loadstring('local x = 1\\nerror("boom")', 'name')))|[string "name"]:2: boom
            V|select(2, pcall(loadstring('error("boom")', '=mine')))|mine:1: boom
            V|select(2, pcall(loadstring('error("boom")', '@file.lua')))|file.lua:1: boom
            V|select(2, pcall(loadstring('error("boom")', '@' .. string.rep('f', 71) .. '.lua')))|...ffffffffffffffffffffffffffffffffffffffffffffffff.lua:1: boom
            V|select(2, pcall(loadstring('error("boom")', '=' .. string.rep('e', 90))))|eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee:1: boom
            V|select(2, pcall(loadstring(string.rep('a', 50) .. ' = error("boom")')))|[string "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."]:1: boom
            V|select(2, pcall(loadstring(string.rep('a', 51) .. ' = error("boom")')))|[string "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."]:1: boom
            V|select(2, pcall(loadstring('error("boom")', 'a\\0b')))|[string "a"]:1: boom
            V|(select(2, loadstring('\\27Lua')):gsub('\\27', 'ESC'))|[string "ESCLua"]:1: unexpected symbol near 'char(27)'
            V|select(2, loadstring(string.rep('(', 300) .. '1' .. string.rep(')', 300))):sub(-32)|chunk has too many syntax levels
            V|select(2, pcall(loadstring('error("boom")')))|[string "error("boom")"]:1: boom
            V|select(2, pcall(loadstring('error("boom")', '=mine')))|mine:1: boom
            V|loadstring('return ...')(7)|:7
            V|type(loadstring('return redis')())|table
            V|loadstring('return 1', 5)()|:1
            V|loadstring('return 1', nil)()|:1
            V|loadstring("return redis.call('SET', 'from-loadstring', 'v')")()|+OK
            V|loadstring('return 1', {})|-ERR bad argument #2 to 'loadstring' (string expected, got table)
            V|loadstring()|-ERR bad argument #1 to 'loadstring' (string expected, got no value)
            V|select(2, pcall(loadstring('x_global = 1')))|[string "x_global = 1"]:1: Attempt to modify a readonly table
            V|table.foreach({10, 20, 30}, function(k, v) if v == 20 then return k * 100 end end)|:200
            V|table.foreachi({10, 20, 30}, function(k, v) if v == 30 then return k end end)|:3
            V|{table.foreach({}, function() end)}|[]
            V|{table.foreachi({}, function() end)}|[]
            V|table.foreach({a = 1}, function(k, v) return k .. v end)|a1
            V|table.foreachi({5, 6}, function(i, v) if i == 2 then return v end end)|:6
            V|table.foreach(nil, function() end)|-ERR bad argument #1 to 'foreach' (table expected, got nil)
            V|table.foreach({})|-ERR bad argument #2 to 'foreach' (function expected, got no value)
            V|table.foreach({}, 5)|-ERR bad argument #2 to 'foreach' (function expected, got number)
            V|table.foreachi('x', function() end)|-ERR bad argument #1 to 'foreachi' (table expected, got string)
            V|table.foreachi({})|-ERR bad argument #2 to 'foreachi' (function expected, got no value)
            V|table.setn({}, 3)|-ERR 'setn' is obsolete
            V|table.setn(5)|-ERR bad argument #1 to 'setn' (table expected, got number)
            V|math.mod(7, 3)|:1
            V|math.mod(-7, 3)|:-1
            V|tostring(math.mod(7.5, 2))|1.5
            V|tostring(math.mod(1, 0))|-nan
            V|math.mod()|-ERR bad argument #2 to 'mod' (number expected, got no value)
            V|{string.gfind('a1b2', '%d')()}|[1]
            V|('x1y2'):gfind('%a')()|x
            V|table.foreach and math.mod and string.gfind and 1 or 0|:1
            V|type(table.foreachi)|function
            V|{pcall(loadstring('error("boom", 0)'))}|[nil, boom]
            V|select(2, loadstring('return ' .. string.rep('{', 100000))):sub(-32)|chunk has too many syntax levels
            V|select(2, loadstring('return ' .. string.rep('not ', 100000) .. 'x')):sub(-32)|chunk has too many syntax levels
            V|select(2, loadstring('return ' .. string.rep('a .. ', 100000) .. 'a')):sub(-32)|chunk has too many syntax levels
            V|select(2, loadstring(string.rep('if x then ', 100000))):sub(-32)|chunk has too many syntax levels
            V|select(2, loadstring('return ' .. string.rep('function() return ', 100000))):sub(-32)|chunk has too many syntax levels
            V|select(2, loadstring('return ' .. string.rep('f(', 100000))):sub(-32)|chunk has too many syntax levels
            V|select(2, loadstring('return ' .. string.rep('- ', 100000) .. '1')):sub(-32)|chunk has too many syntax levels
            """;
        assertEquals(List.of(), RedisAnswers.unlike(cases));
    }

    @Test
    void aBatchFromBeforeThemFindsNone()
    {
        final KvStore older = ScriptsTest.before(Lua51Base.SINCE);
        RedisAnswers.assertUnknownGlobal(older, "loadstring", "return loadstring('return 1')()");
        final String none = "return (table.foreach or table.foreachi or table.setn or math.mod or string.gfind) == nil";
        assertEquals(":1", text(RedisAnswers.eval(older, none)));
        assertEquals("nil", text(RedisAnswers.eval(new KvStore(), none)));
    }

    /**
     * Compiling costs Lua instructions here (Redis runs it in C, bounded by its script timeout): a script that compiles
     * 3 MB ends as one that runs too long, at every member alike.
     */
    @Test
    void compilingCountsAsInstructions()
    {
        final String tooMuch = text(RedisAnswers.eval(new KvStore(), "return loadstring(string.rep(' ', 3000000))"))
            .replace("-ERR user_script:1: ", "-ERR "); // LuaJ gives no place in a tail call
        assertTrue(tooMuch.startsWith("-ERR the script ran past " + ScriptRuntime.INSTRUCTIONS +
            " Lua instructions script: "), tooMuch);
        assertEquals(":1", text(RedisAnswers.eval(new KvStore(), "return loadstring(string.rep(' ', 2000000) .. " +
            "'return 1')()")));
    }
}
