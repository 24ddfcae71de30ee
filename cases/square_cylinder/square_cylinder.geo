// square_cylinder.geo -- flow past a square cylinder (paper §4.2): the channel
// [-16, 25] x [-22, 22] around the unit square [-0.5, 0.5]^2, unstructured triangles
// refined near the cylinder and along the wake.
// Physical curves: "inflow" (left, top and bottom: u = 1, v = 0), "outflow" (x = 25),
// "cylinder" (no-slip); physical surface "fluid".
// Sizes: hc at the cylinder, growing to hf in the far field; a wake box
// [0.5, 12] x [-2.5, 2.5] with size hw.
//   gmsh square_cylinder.geo -2 -format msh41 -o square_cylinder.msh
DefineConstant[ hc = {0.2, Name "hc"}, hw = {0.33, Name "hw"}, hf = {3.0, Name "hf"} ];

Point(1) = {-16, -22, 0, hf};
Point(2) = { 25, -22, 0, hf};
Point(3) = { 25,  22, 0, hf};
Point(4) = {-16,  22, 0, hf};
Point(5) = {-0.5, -0.5, 0, hc};
Point(6) = { 0.5, -0.5, 0, hc};
Point(7) = { 0.5,  0.5, 0, hc};
Point(8) = {-0.5,  0.5, 0, hc};

Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Line(5) = {5, 6};
Line(6) = {6, 7};
Line(7) = {7, 8};
Line(8) = {8, 5};

Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {5, 6, 7, 8};
Plane Surface(1) = {1, 2};

// size field: hc at the cylinder growing linearly with distance, and hw in the wake
Field[1] = Distance;
Field[1].CurvesList = {5, 6, 7, 8};
Field[1].Sampling = 40;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = hc;
Field[2].SizeMax = hf;
Field[2].DistMin = 0.2;
Field[2].DistMax = 14;
Field[3] = Box;
Field[3].VIn = hw;
Field[3].VOut = hf;
Field[3].XMin = 0.5;
Field[3].XMax = 12;
Field[3].YMin = -2.5;
Field[3].YMax = 2.5;
Field[4] = Min;
Field[4].FieldsList = {2, 3};
Background Field = 4;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.Algorithm = 6;

Physical Curve("inflow") = {1, 3, 4};
Physical Curve("outflow") = {2};
Physical Curve("cylinder") = {5, 6, 7, 8};
Physical Surface("fluid") = {1};
