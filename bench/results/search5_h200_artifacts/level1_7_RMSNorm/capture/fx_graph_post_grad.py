class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[16, 2048, 4096]", arg1_1: "f32[4096]"):
        # File: /work/main/problems/gpu/level1/7_RMSNorm.py:15 in forward, code: ms = torch.mean(x * x, dim=-1, keepdim=True)
        mul: "f32[16, 2048, 4096]" = torch.ops.aten.mul.Tensor(arg0_1, arg0_1)
        mean: "f32[16, 2048, 1]" = torch.ops.aten.mean.dim(mul, [-1], True);  mul = None

        # File: /work/main/problems/gpu/level1/7_RMSNorm.py:16 in forward, code: return x * torch.rsqrt(ms + self.eps) * self.weight
        add: "f32[16, 2048, 1]" = torch.ops.aten.add.Tensor(mean, 1e-06);  mean = None
        rsqrt: "f32[16, 2048, 1]" = torch.ops.aten.rsqrt.default(add);  add = None
        mul_1: "f32[16, 2048, 4096]" = torch.ops.aten.mul.Tensor(arg0_1, rsqrt);  arg0_1 = rsqrt = None
        mul_2: "f32[16, 2048, 4096]" = torch.ops.aten.mul.Tensor(mul_1, arg1_1);  mul_1 = arg1_1 = None
        return (mul_2,)
