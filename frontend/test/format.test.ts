import { describe, expect, it } from "vitest";
import { addValues, formatNumber, formatValue, toNumber } from "../src/format";

describe("number formatting", () => {
  it("prints float elements like a shortened PyTorch print", () => {
    expect(formatNumber(2)).toBe("2.0");
    expect(formatNumber(3.58385316)).toBe("3.5839");
    expect(formatValue({ shape: [2], dtype: "float32", data: [1, 0] })).toBe("[1.0, 0.0]");
  });

  it("prints elements of integer tensors as integers", () => {
    expect(formatValue({ shape: [2], dtype: "int64", data: [1, 0] })).toBe("[1, 0]");
    expect(formatValue({ shape: [], dtype: "int64", data: [-100] })).toBe("-100");
    expect(formatValue({ shape: [2, 2], dtype: "uint8", data: [1, 2, 3, 4] })).toBe("[[1, 2], [3, 4]]");
    expect(formatValue({ shape: [2], dtype: "bool", data: [true, false] })).toBe("[True, False]");
  });

  it("keeps whole numbers plain when asked (dims, sizes, int options)", () => {
    expect(formatNumber(-100, 4, true)).toBe("-100");
    expect(formatNumber(12345678901, 4, true)).toBe("12345678901");
    expect(formatNumber(0.5, 4, true)).toBe("0.5");
  });

  it("prints complex elements ([real, imaginary] on the wire) as PyTorch writes them", () => {
    expect(formatNumber([3, 4])).toBe("3.0+4.0j");
    expect(formatNumber([0.6, -0.8])).toBe("0.6-0.8j");
    expect(formatNumber(["NaN", "-Infinity"])).toBe("nan-infj");
    expect(formatValue({ shape: [2], dtype: "complex64", data: [[1, 2], [-0, -3]] })).toBe("[1.0+2.0j, -0.0-3.0j]");
    expect(toNumber([3, 4])).toBe(5);
    const sum = addValues([
      { shape: [1], dtype: "complex64", data: [[1, 2]] },
      { shape: [1], dtype: "complex64", data: [[0.5, -3]] },
    ]);
    expect(sum?.data).toEqual([[1.5, -1]]);
  });
});
